"""Change the dtype of an array."""
import numpy

from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


class Cast(FunctionNode):
    """``x.astype(typ)``; backward casts the gradient back."""

    def __init__(self, typ):
        self.type = numpy.dtype(typ)

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))

    def forward(self, inputs):
        x, = inputs
        self._in_type = x.dtype
        return x.astype(self.type, copy=False),

    def backward(self, indexes, grad_outputs):
        return cast(grad_outputs[0], self._in_type),


def cast(x, typ):
    """``x`` converted to dtype ``typ`` (anything ``numpy.dtype`` accepts).

    The gradient is cast back to the dtype of ``x``.

    >>> F.cast(np.zeros(3, np.float32), np.float64).dtype
    dtype('float64')
    """
    return Cast(typ).apply((x,))[0]
