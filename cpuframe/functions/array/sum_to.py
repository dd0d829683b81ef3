"""Sum an array down to a shape (the adjoint of broadcast_to)."""
from cpuframe import utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


class SumTo(FunctionNode):
    def __init__(self, shape):
        self._shape = tuple(shape)

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('_shape',)

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        x_shape = type_check.eval(in_types[0].shape)
        ndim = len(self._shape)
        ok = len(x_shape) >= ndim and all(
            s in (1, t) for s, t in zip(self._shape[::-1], x_shape[::-1]))
        if not ok:
            raise type_check.InvalidType(
                'x.shape summable to {}'.format(self._shape),
                'x.shape = {}'.format(x_shape))

    def forward(self, inputs):
        x, = inputs
        self._in_shape = x.shape
        return utils.force_array(utils.sum_to(x, self._shape), x.dtype),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.array.broadcast import broadcast_to
        return broadcast_to(grad_outputs[0], self._in_shape),

    def backward_arrays(self, indexes, grad_outputs):
        from cpuframe.functions.array.broadcast import broadcast_to_array
        return broadcast_to_array(grad_outputs[0], self._in_shape),


def sum_to(x, shape):
    """Sum ``x`` over the broadcast axes so that its shape becomes ``shape``."""
    shape = tuple(shape)
    if tuple(x.shape) == shape:
        from cpuframe.variable import as_variable
        return as_variable(x)
    return SumTo(shape).apply((x,))[0]


def sum_to_array(x, shape):
    """``sum_to`` on an array, nothing recorded (for ``backward_arrays``)."""
    shape = tuple(shape)
    if tuple(x.shape) == shape:
        return x
    return SumTo(shape)._compute((x,))[0]
