"""Interchange two axes."""
from cpuframe import backend
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


class Swapaxes(FunctionNode):
    """Swap ``axis1`` and ``axis2``; the gradient swaps them back."""

    def __init__(self, axis1, axis2):
        self.axis1 = int(axis1)
        self.axis2 = int(axis2)

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('axis1', 'axis2')

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        x = in_types[0]
        axis1 = type_check.make_variable(self.axis1, 'axis1')
        axis2 = type_check.make_variable(self.axis2, 'axis2')
        type_check.expect(-x.ndim <= axis1, axis1 < x.ndim,
                          -x.ndim <= axis2, axis2 < x.ndim)

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        return xp.swapaxes(x, self.axis1, self.axis2),

    def backward(self, indexes, grad_outputs):
        return swapaxes(grad_outputs[0], self.axis1, self.axis2),


def swapaxes(x, axis1, axis2):
    """Interchange the axes ``axis1`` and ``axis2`` of ``x``.

    Negative axes count from the end.  The result is a view when possible.

    >>> F.swapaxes(np.zeros((2, 3, 4), np.float32), 0, 2).shape
    (4, 3, 2)
    """
    return Swapaxes(axis1, axis2).apply((x,))[0]
