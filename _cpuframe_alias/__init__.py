"""Makes ``import chainer`` import cpuframe in every process, on request.

cpuframe installs ``cpuframe-chainer-alias.pth`` into site-packages.  At
interpreter start-up it imports this module only when the environment
variable ``CPUFRAME_AS_CHAINER`` is set to ``1`` (or ``true``/``yes``/``on``),
and ``activate()`` then puts a finder on ``sys.meta_path`` that imports
nothing until a ``chainer``, ``chainerx``, ``chainermn`` or ``onnx_chainer``
import is first
seen: at that point it installs ``cpuframe.compat``'s alias and hands the
import to it.  So
pytest, ``mpiexec`` ranks, forked and spawned workers and web apps that
import ``chainer`` get cpuframe with no change to their commands, and other
processes pay nothing beyond reading one line.

This module is deliberately tiny and imports neither cpuframe nor NumPy.
"""
import os
import sys

ENV_VAR = 'CPUFRAME_AS_CHAINER'
_TRUE = ('1', 'true', 'yes', 'on')


def requested(environ=None):
    """True when ``CPUFRAME_AS_CHAINER`` asks for the alias."""
    value = (os.environ if environ is None else environ).get(ENV_VAR, '')
    return value.strip().lower() in _TRUE


class _LazyAlias:
    """Installs cpuframe.compat's finder on the first chainer import."""

    @staticmethod
    def find_spec(fullname, path=None, target=None):
        top = fullname.partition('.')[0]
        if top not in ('chainer', 'chainerx', 'chainermn', 'onnx_chainer'):
            return None
        if _LazyAlias in sys.meta_path:
            sys.meta_path.remove(_LazyAlias)
        from cpuframe import compat
        compat.install()
        return compat._finder.find_spec(fullname, path, target)


def activate():
    """Put the lazy alias on ``sys.meta_path`` (idempotent)."""
    if _LazyAlias not in sys.meta_path:
        sys.meta_path.insert(0, _LazyAlias)


def activate_if_requested():
    """What the ``.pth`` file runs at start-up."""
    if requested():
        activate()
