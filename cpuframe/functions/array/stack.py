"""Join arrays along a new axis."""
from cpuframe import backend
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


class Stack(FunctionNode):
    """Stack same-shaped inputs on a new ``axis``; backward separates."""

    def __init__(self, axis=0):
        self.axis = int(axis)

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('axis',)

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() > 0)
        x0 = in_types[0]
        axis = type_check.make_variable(self.axis, 'axis')
        # The new axis may sit anywhere among the ndim + 1 output axes.
        type_check.expect(-x0.ndim - 1 <= axis, axis <= x0.ndim)
        for x in in_types[1:]:
            type_check.expect(x.dtype == x0.dtype, x.shape == x0.shape)

    def forward(self, inputs):
        xp = backend.get_array_module(*inputs)
        self._axis = self.axis % (inputs[0].ndim + 1)
        return xp.stack(inputs, axis=self._axis),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.array.separate import separate
        gxs = separate(grad_outputs[0], self._axis)
        return tuple(gxs[i] for i in indexes)


def stack(xs, axis=0):
    """Stack the same-shaped Variables or arrays ``xs`` along a new axis.

    ``axis`` ranges over ``[-x.ndim - 1, x.ndim]``; the output has
    ``len(xs)`` entries along it.

    >>> a = np.zeros((2, 3), np.float32)
    >>> F.stack((a, a, a, a), axis=1).shape
    (2, 4, 3)
    """
    return Stack(axis).apply(tuple(xs))[0]
