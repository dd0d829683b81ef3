"""Split an array into its slices along an axis (the inverse of stack)."""
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check
from cpuframe.variable import Variable


class Separate(FunctionNode):
    """``x[..., i, ...]`` for every ``i`` along ``axis``; backward stacks."""

    def __init__(self, axis=0):
        self.axis = int(axis)

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('axis',)

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        x = in_types[0]
        axis = type_check.make_variable(self.axis, 'axis')
        type_check.expect(-x.ndim <= axis, axis < x.ndim)

    def forward(self, inputs):
        x, = inputs
        self._axis = self.axis % x.ndim
        lead = (slice(None),) * self._axis
        # The trailing Ellipsis keeps a 0-dim slice an array, not a scalar.
        return tuple(x[lead + (i, Ellipsis)]
                     for i in range(x.shape[self._axis]))

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.array.stack import stack
        gys = []
        for i, gy in enumerate(grad_outputs):
            if gy is None:
                shape, dtype, device = self._output_meta[i]
                gy = Variable(device.xp.zeros(shape, dtype=dtype),
                              requires_grad=False)
            gys.append(gy)
        return stack(gys, self._axis),


def separate(x, axis=0):
    """Split ``x`` into ``x.shape[axis]`` Variables, removing ``axis``.

    Returns a tuple (even of one element) whose ``i``-th entry is
    ``x[..., i, ...]`` with ``i`` at position ``axis``.

    >>> ys = F.separate(np.zeros((2, 3), np.float32), axis=1)
    >>> len(ys), ys[0].shape
    (3, (2,))
    """
    return Separate(axis).apply((x,))
