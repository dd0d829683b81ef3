"""Objects whose arrays live on one device (Chainer's
``chainer.device_resident``).  ``DeviceResident`` is defined in
:mod:`cpuframe.backend`."""
from cpuframe.backend import DeviceResident  # noqa: F401


class DeviceResidentsVisitor:
    """Base class of visitors that walk device residents recursively
    (passed to ``DeviceResident.device_resident_accept``)."""

    def visit_device_resident(self, device_resident):
        """Process a :class:`~cpuframe.DeviceResident`."""
        raise NotImplementedError()

    def visit_array(self, arr):
        """Process an array and return it (or its replacement)."""
        raise NotImplementedError()

    def visit_variable(self, param):
        """Process a Variable or Parameter."""
        raise NotImplementedError()
