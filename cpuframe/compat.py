"""Run unmodified Chainer code on cpuframe.

``python -m cpuframe.compat train.py --epoch 3`` runs ``train.py`` with
``import chainer`` (and ``chainer.functions``, ``chainer.links``,
``chainer.training.extensions``, ``chainer.backends.intel64``, ...)
resolving to cpuframe.  ``install()`` does the same from Python.  A script
that imports ``chainerx`` gets a stub whose ``is_available()`` is False.
"""
import importlib
import importlib.abc
import importlib.util
import runpy
import sys
import types

_PREFIX = 'chainer'
_TARGET = 'cpuframe'

# Chainer module paths whose cpuframe counterpart has another name.
_RENAMES = {
    'chainer.cuda': 'cpuframe.backends.cuda',
    # Chainer keeps each ROI function in a module of its own.
    'chainer.functions.pooling.roi_max_pooling_2d':
        'cpuframe.functions.pooling.roi_pooling_align_2d',
    'chainer.functions.pooling.roi_average_pooling_2d':
        'cpuframe.functions.pooling.roi_pooling_align_2d',
    'chainer.functions.pooling.roi_max_align_2d':
        'cpuframe.functions.pooling.roi_pooling_align_2d',
    'chainer.functions.pooling.roi_average_align_2d':
        'cpuframe.functions.pooling.roi_pooling_align_2d',
}


def _target_name(fullname):
    if fullname in _RENAMES:
        return _RENAMES[fullname]
    return _TARGET + fullname[len(_PREFIX):]


def _make_chainerx_stub():
    module = types.ModuleType('chainerx')
    module.__doc__ = 'Stub of ChainerX: not available under cpuframe.'
    module.is_available = lambda: False
    module.__cpuframe_stub__ = True
    return module


class _ChainerAliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Resolves ``chainer[.x.y]`` to the cpuframe module of the same path."""

    def find_spec(self, fullname, path, target=None):
        if fullname == 'chainerx':
            return importlib.util.spec_from_loader(fullname, self)
        if fullname != _PREFIX and not fullname.startswith(_PREFIX + '.'):
            return None
        name = _target_name(fullname)
        if name is None or importlib.util.find_spec(name) is None:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        if spec.name == 'chainerx':
            return _make_chainerx_stub()
        return importlib.import_module(_target_name(spec.name))

    def exec_module(self, module):
        """The module is cpuframe's, already executed."""


_finder = _ChainerAliasFinder()


def install():
    """Make ``import chainer`` (and its submodules) import cpuframe.

    Idempotent.  Raises ``RuntimeError`` when the real Chainer was already
    imported in this process, since the two cannot be mixed.
    """
    existing = sys.modules.get('chainer')
    if existing is not None and not getattr(existing, '__name__', '').startswith(
            _TARGET):
        raise RuntimeError(
            'cpuframe.compat.install: the real chainer is already imported; '
            'call install() before importing chainer')
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)


def uninstall():
    """Undo ``install()`` and forget the aliased modules."""
    if _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    for name in list(sys.modules):
        if name == _PREFIX or name.startswith(_PREFIX + '.') or (
                name == 'chainerx' and getattr(sys.modules[name],
                                               '__cpuframe_stub__', False)):
            del sys.modules[name]


def main(argv=None):
    """``python -m cpuframe.compat SCRIPT [ARGS]``: run SCRIPT as __main__."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ('-h', '--help'):
        sys.stderr.write('usage: python -m cpuframe.compat SCRIPT [ARGS...]\n'
                         '   or: python -m cpuframe.compat -m MODULE [ARGS...]\n')
        return 0 if argv else 2
    install()
    if argv[0] == '-m':
        if len(argv) < 2:
            sys.stderr.write('cpuframe.compat: -m needs a module name\n')
            return 2
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name='__main__', alter_sys=True)
    else:
        sys.argv = argv
        runpy.run_path(argv[0], run_name='__main__')
    return 0


if __name__ == '__main__':
    sys.exit(main())
