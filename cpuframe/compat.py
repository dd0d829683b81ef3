"""Run unmodified Chainer code on cpuframe.

``python -m cpuframe.compat train.py --epoch 3`` runs ``train.py`` with
``import chainer`` (and ``chainer.functions``, ``chainer.links``,
``chainer.training.extensions``, ``chainer.backends.intel64``, ...)
resolving to cpuframe, ``import chainermn`` to ``cpuframe.mn`` and
``import onnx_chainer`` to ``cpuframe.onnx_chainer``. ``install()`` does
the same from Python.  A script that imports ``chainerx`` gets a stub whose
``is_available()`` is False.
"""
import builtins
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import runpy
import sys
import types
import zipfile

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


# ChainerMN's package is cpuframe.mn.  CPUFRAME_KEEP_CHAINERMN=1 leaves
# `import chainermn` to an installed ChainerMN instead (e.g. to compare the
# two on the same cpuframe model).
_MN_PREFIX = 'chainermn'
_MN_TARGET = 'cpuframe.mn'


def _alias_chainermn():
    return os.environ.get('CPUFRAME_KEEP_CHAINERMN', '').strip().lower() not in (
        '1', 'true', 'yes', 'on')


# Chainer 7's ONNX exporter is cpuframe.onnx_chainer (CPUFRAME_KEEP_ONNX_CHAINER=1
# leaves `import onnx_chainer` to an installed one).
_ONNX_PREFIX = 'onnx_chainer'
_ONNX_TARGET = 'cpuframe.onnx_chainer'


def _alias_onnx_chainer():
    return os.environ.get('CPUFRAME_KEEP_ONNX_CHAINER', '').strip().lower() \
        not in ('1', 'true', 'yes', 'on')


def _target_name(fullname):
    if fullname in _RENAMES:
        return _RENAMES[fullname]
    if _is_under(fullname, _MN_PREFIX):
        return _MN_TARGET + fullname[len(_MN_PREFIX):]
    if _is_under(fullname, _ONNX_PREFIX):
        return _ONNX_TARGET + fullname[len(_ONNX_PREFIX):]
    return _TARGET + fullname[len(_PREFIX):]


def _is_under(fullname, prefix):
    return fullname == prefix or fullname.startswith(prefix + '.')


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
        if _is_under(fullname, _MN_PREFIX):
            if not _alias_chainermn():
                return None
        elif _is_under(fullname, _ONNX_PREFIX):
            if not _alias_onnx_chainer():
                return None
        elif not _is_under(fullname, _PREFIX):
            return None
        try:
            found = importlib.util.find_spec(_target_name(fullname))
        except ModuleNotFoundError:
            found = None
        if found is None:
            raise _not_provided(fullname)
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        if spec.name == 'chainerx':
            return _make_chainerx_stub()
        target = _target_name(spec.name)
        module = importlib.import_module(target)
        _alias_loaded_submodules(spec.name, target)
        return module

    def exec_module(self, module):
        """The module is cpuframe's, already executed."""


def _alias_loaded_submodules(alias, target):
    """Register ``alias.x`` for every ``target.x`` already imported.

    Importing a submodule under a new name binds it on its parent package
    (``setattr(chainer.utils, 'experimental', module)``), which would
    replace what the package bound there itself: Chainer's
    ``chainer.utils.experimental`` is the function, not the module.  A name
    already in ``sys.modules`` is not imported again, so nothing is bound.
    """
    prefix = target + '.'
    for name, module in list(sys.modules.items()):
        if name.startswith(prefix) and module is not None:
            sys.modules.setdefault(alias + name[len(target):], module)


def _not_provided(fullname):
    """The error for a ``chainer.*`` module path cpuframe has no module for.

    It is a ModuleNotFoundError, so ``try: import ... except ImportError``
    in library code behaves as with Chainer; its ``name`` is left unset so
    that ``from chainer import x`` reports this message rather than a bare
    "cannot import name".
    """
    try:
        from cpuframe import __version__ as version
    except ImportError:
        version = '?'
    return ModuleNotFoundError(
        'cpuframe does not provide {} yet (there is no module {} in '
        'cpuframe {}; running Chainer code through cpuframe.compat)'.format(
            fullname, _target_name(fullname), version))


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
        if _is_under(name, _PREFIX) or _is_under(name, _MN_PREFIX) or (
                name == 'chainerx' and getattr(sys.modules[name],
                                               '__cpuframe_stub__', False)):
            del sys.modules[name]


_USAGE = """\
usage: python -m cpuframe.compat SCRIPT [ARGS...]
   or: python -m cpuframe.compat -m MODULE [ARGS...]
   or: python -m cpuframe.compat -c COMMAND [ARGS...]
   or: python -m cpuframe.compat --version

Runs a Chainer program as `python SCRIPT ARGS...` would (same sys.argv,
sys.path[0] the script's directory, __main__, exit status), with every
`import chainer` resolving to cpuframe.  To do the same for every Python
process without changing commands (pytest, mpiexec ranks, servers), set
CPUFRAME_AS_CHAINER=1 in the environment.
"""


def _run_script(path):
    """Run the file (or directory / zip with ``__main__.py``) at ``path``
    as ``python path`` would."""
    if os.path.isdir(path) or not path.endswith('.py') and (
            zipfile.is_zipfile(path)):
        # The interpreter puts the directory or archive itself on sys.path.
        sys.path[0] = path
        runpy.run_path(path, run_name='__main__')
        return
    with open(path, 'rb') as f:
        source = f.read()
    code = compile(source, path, 'exec', dont_inherit=True)
    # What the interpreter does for `python path`: the script's real
    # directory first on sys.path, an absolute __file__, a fresh __main__.
    sys.path[0] = os.path.dirname(os.path.realpath(path))
    main_module = types.ModuleType('__main__')
    main_module.__file__ = os.path.abspath(path)
    main_module.__cached__ = None
    main_module.__builtins__ = builtins
    main_module.__spec__ = None
    main_module.__loader__ = importlib.machinery.SourceFileLoader(
        '__main__', path)
    sys.modules['__main__'] = main_module
    exec(code, main_module.__dict__)


def main(argv=None):
    """``python -m cpuframe.compat SCRIPT [ARGS]``: run SCRIPT as __main__.

    Returns the exit status for options this module handles; the script's
    own ``sys.exit`` and uncaught exceptions propagate as they would under
    ``python SCRIPT``.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ('-h', '--help'):
        (sys.stdout if argv else sys.stderr).write(_USAGE)
        return 0 if argv else 2
    if argv[0] in ('-V', '--version'):
        from cpuframe import __version__
        sys.stdout.write('cpuframe {} (Chainer 7 API), Python {}\n'.format(
            __version__, sys.version.split()[0]))
        return 0
    if argv[0] in ('-m', '-c'):
        if len(argv) < 2:
            sys.stderr.write('cpuframe.compat: {} needs {}\n'.format(
                argv[0], 'a module name' if argv[0] == '-m' else
                'a command'))
            return 2
    elif argv[0].startswith('-'):
        sys.stderr.write('cpuframe.compat: unknown option {} (try --help)\n'
                         .format(argv[0]))
        return 2
    elif not os.path.exists(argv[0]):
        sys.stderr.write(
            "cpuframe.compat: can't open file {!r}: [Errno 2] No such file "
            'or directory\n'.format(os.path.abspath(argv[0])))
        return 2
    install()
    if argv[0] == '-m':
        sys.argv = argv[1:]
        sys.path[0] = os.getcwd()
        runpy.run_module(argv[1], run_name='__main__', alter_sys=True)
    elif argv[0] == '-c':
        sys.argv = ['-c'] + argv[2:]
        sys.path[0] = ''
        main_module = types.ModuleType('__main__')
        main_module.__builtins__ = builtins
        sys.modules['__main__'] = main_module
        exec(compile(argv[1], '<string>', 'exec'), main_module.__dict__)
    else:
        sys.argv = argv
        _run_script(argv[0])
    return 0


if __name__ == '__main__':
    sys.exit(main())
