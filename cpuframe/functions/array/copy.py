"""Copy an array to a device."""
from cpuframe import backend
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


class Copy(FunctionNode):
    """A copy of ``x`` on ``out_device``; backward copies back."""

    def __init__(self, out_device):
        self.out_device = backend.get_device(out_device)

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))

    def forward(self, inputs):
        x, = inputs
        self._in_device = backend.get_device_from_array(x)
        y = self.out_device.send(x)
        if y is x:
            y = x.copy()
        return y,

    def backward(self, indexes, grad_outputs):
        return Copy(self._in_device).apply(grad_outputs)


def copy(x, dst):
    """A copy of ``x`` on the device ``dst``.

    Args:
        x: a Variable or array.
        dst: a device specifier ``backend.get_device`` accepts: ``'@numpy'``
            or ``-1`` (the CPU), ``'@intel64'``, ``'@cupy:N'`` or ``N >= 0``
            (a GPU), or a ``Device``.

    The result never shares memory with ``x``, even on the same device.  The
    gradient is copied back to the device of ``x``.

    >>> F.copy(np.zeros(3, np.float32), '@numpy').device
    <CpuDevice @numpy>
    """
    return Copy(dst).apply((x,))[0]
