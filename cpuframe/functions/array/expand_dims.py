"""Insert an axis of length one."""
from cpuframe import backend
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


class ExpandDims(FunctionNode):
    """Insert a size-1 axis at ``axis``; the gradient reshapes back."""

    def __init__(self, axis):
        self.axis = int(axis)

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('axis',)

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        x = in_types[0]
        axis = type_check.make_variable(self.axis, 'axis')
        # The new axis may sit anywhere among the ndim + 1 output axes.
        type_check.expect(-x.ndim - 1 <= axis, axis <= x.ndim)

    def forward(self, inputs):
        x, = inputs
        self._in_shape = x.shape
        xp = backend.get_array_module(x)
        return xp.expand_dims(x, self.axis),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.array.reshape import reshape
        return reshape(grad_outputs[0], self._in_shape),


def expand_dims(x, axis):
    """``x`` with a new axis of length one inserted at ``axis``.

    ``axis`` ranges over ``[-x.ndim - 1, x.ndim]``; negative values count
    from the end of the output's axes, as in ``numpy.expand_dims``.

    >>> F.expand_dims(np.zeros((2, 3), np.float32), 1).shape
    (2, 1, 3)
    """
    return ExpandDims(axis).apply((x,))[0]
