"""The NumPy CPU device."""
import numpy

from cpuframe.backends._base import Device


def to_numpy(array):
    if isinstance(array, numpy.ndarray):
        return array
    if hasattr(array, 'get') and type(array).__module__.startswith('cupy'):
        return array.get()
    return numpy.asarray(array)


class CpuDevice(Device):
    """The plain NumPy device (``'@numpy'``)."""

    xp = numpy
    name = '@numpy'
    supported_array_types = (numpy.ndarray, numpy.generic)

    def send_array(self, array):
        return to_numpy(array)
