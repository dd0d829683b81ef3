"""The Intel64 device (``'@intel64'``)."""
import sys

import numpy

from cpuframe.backends._base import Device
from cpuframe.backends._cpu import _to_numpy

_pkg = sys.modules[__package__]  # the package: mdarray and the loaded module live there


class Intel64Device(Device):
    """The oneDNN device (``'@intel64'``).

    float32 arrays of 1 to 12 dimensions sent here become ``mdarray``s;
    others (integer labels, float64, 0-dim) stay NumPy arrays, which the
    NumPy path computes as usual.
    """

    xp = numpy
    name = '@intel64'

    def __init__(self):
        _pkg.check_ideep_available()

    @property
    def supported_array_types(self):
        return (numpy.ndarray, numpy.generic, _pkg.mdarray)

    def send_array(self, array):
        if _pkg.is_native_array(array):
            return array
        array = _to_numpy(array)
        if isinstance(array, numpy.ndarray) and \
                array.dtype == numpy.float32 and 1 <= array.ndim <= 12:
            return _pkg.mdarray.from_numpy(array)
        return array
