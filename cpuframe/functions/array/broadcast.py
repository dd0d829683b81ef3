"""Broadcast an array to a shape."""
from cpuframe import backend
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


class BroadcastTo(FunctionNode):
    # (its backward_arrays computes gradient nodes of constant settings:
    # @static_graph may replay those directly)
    _static_backward = True

    def __init__(self, shape):
        self._shape = tuple(shape)

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('_shape',)

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        x_shape = type_check.eval(in_types[0].shape)
        ndim = len(self._shape)
        ok = len(x_shape) <= ndim and all(
            s in (1, t) for s, t in zip(x_shape[::-1], self._shape[::-1]))
        if not ok:
            raise type_check.InvalidType(
                'x.shape broadcastable to {}'.format(self._shape),
                'x.shape = {}'.format(x_shape))

    def forward(self, inputs):
        x, = inputs
        self._in_shape = x.shape
        xp = backend.get_array_module(x)
        return xp.broadcast_to(x, self._shape),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.array.sum_to import sum_to
        return sum_to(grad_outputs[0], self._in_shape),

    def backward_arrays(self, indexes, grad_outputs):
        from cpuframe.functions.array.sum_to import sum_to_array
        return sum_to_array(grad_outputs[0], self._in_shape),


def broadcast_to(x, shape):
    """Broadcast ``x`` to ``shape`` (the result is a read-only view)."""
    shape = tuple(shape)
    if tuple(x.shape) == shape:
        from cpuframe.variable import as_variable
        return as_variable(x)
    return BroadcastTo(shape).apply((x,))[0]


def broadcast_to_array(x, shape):
    """``broadcast_to`` on an array, nothing recorded (for
    ``backward_arrays``)."""
    shape = tuple(shape)
    if tuple(x.shape) == shape:
        return x
    return BroadcastTo(shape)._compute((x,))[0]


class Broadcast(FunctionNode):
    """Broadcast several arrays against each other."""

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.expect_broadcast_shapes(*[t.shape for t in in_types])

    def forward(self, inputs):
        xp = backend.get_array_module(*inputs)
        self._shapes = [x.shape for x in inputs]
        return tuple(xp.broadcast_arrays(*inputs))

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.array.sum_to import sum_to
        return tuple(sum_to(grad_outputs[i], self._shapes[i]) for i in indexes)


def broadcast(*args):
    """Broadcast the inputs against each other; returns a tuple (or one)."""
    if len(args) == 0:
        raise ValueError('broadcast: expected at least one input, got none')
    ys = Broadcast().apply(args)
    return ys[0] if len(ys) == 1 else ys
