"""The intel64 backend: oneDNN through the native module ``cpuframe._dnnl``.

Whether an op runs on oneDNN is decided in one place, the FunctionNode
machinery, from ``config.use_ideep`` and what the op says it supports; the
helpers here answer the questions it asks.
"""
import numpy

from cpuframe import _native
from cpuframe.backends._base import Device
from cpuframe.backends._cpu import _to_numpy
from cpuframe.configuration import config

_SHOULD_USE_LEVELS = ('>=auto', '==always')


def is_ideep_available():
    """True when the oneDNN native module loaded."""
    return _native.load() is not None


def unavailable_reason():
    """Why the native module did not load, or ``None`` when it did."""
    return None if is_ideep_available() else _native.load_error()


def check_ideep_available():
    """Raise ``RuntimeError`` with the reason when oneDNN is not usable."""
    if not is_ideep_available():
        raise RuntimeError(
            'intel64 backend: the oneDNN native module cpuframe._dnnl could '
            'not be loaded: {}'.format(_native.load_error()))


def should_use_ideep(level):
    """Chainer's check: ``level`` is ``'>=auto'`` or ``'==always'``."""
    if level not in _SHOULD_USE_LEVELS:
        raise ValueError(
            'should_use_ideep: expected level in {}, got {!r}'.format(
                _SHOULD_USE_LEVELS, level))
    if not is_ideep_available():
        return False
    if level == '>=auto':
        return config.use_ideep in ('auto', 'always')
    return config.use_ideep == 'always'


def is_native_array(array):
    """True for arrays of the Intel64 device's native tensor type."""
    return False


def inputs_all_ready(inputs, supported_ndim=(2, 4)):
    """True when every input is an array oneDNN can take as it is.

    ``None`` entries are ignored. An input qualifies when it is a float32
    NumPy array (or native tensor) whose ndim is in ``supported_ndim``.
    """
    if not is_ideep_available():
        return False
    for x in inputs:
        if x is None:
            continue
        if hasattr(x, 'array'):
            x = x.array
        if not (isinstance(x, numpy.ndarray) or is_native_array(x)):
            return False
        if x.dtype != numpy.float32 or x.ndim not in supported_ndim:
            return False
    return True


class Intel64Device(Device):
    """The oneDNN device (``'@intel64'``).

    Until the native tensor lands, arrays on this device are NumPy arrays;
    what changes is that ops prefer their oneDNN routes for them.
    """

    xp = numpy
    name = '@intel64'
    supported_array_types = (numpy.ndarray,)

    def __init__(self):
        check_ideep_available()

    def send_array(self, array):
        return _to_numpy(array)
