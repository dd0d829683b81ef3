"""ChainerX's device class, which Chainer code names even where ChainerX is
absent (``isinstance(device, chainer.backend.ChainerxDevice)``).

cpuframe has no ChainerX (``chainerx.is_available()`` is False), so no
instance of it can exist: the class is there for such checks, and building
one says why it cannot be.
"""
from cpuframe.backends._base import Device

_UNAVAILABLE = ('ChainerX is not available in cpuframe (chainerx.is_available() '
                'is False): use the devices \'@numpy\', \'@intel64\' or '
                '\'@cupy:N\' instead')


class ChainerxDevice(Device):
    """A ChainerX device (never available here)."""

    supported_array_types = ()

    def __init__(self, device=None):
        raise RuntimeError('ChainerxDevice: ' + _UNAVAILABLE)

    @staticmethod
    def from_array(array):
        """The ChainerX device holding ``array``: None, as no array here is
        a ChainerX array."""
        return None

    @staticmethod
    def from_fallback_device(device):
        """The ChainerX device wrapping ``device``: unavailable."""
        raise RuntimeError('ChainerxDevice.from_fallback_device: ' +
                           _UNAVAILABLE)
