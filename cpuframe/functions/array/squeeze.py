"""Remove axes of length one."""
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


def _as_axes(axis):
    if axis is None:
        return None
    if isinstance(axis, (tuple, list)):
        return tuple(int(a) for a in axis)
    return (int(axis),)


class Squeeze(FunctionNode):
    """Drop size-1 axes (all of them, or those in ``axis``)."""

    def __init__(self, axis=None):
        self.axis = _as_axes(axis)

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('axis',)

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        if self.axis is None:
            return
        x = in_types[0]
        shape = type_check.eval(x.shape)
        for i, a in enumerate(self.axis):
            axis = type_check.make_variable(a, 'axis[{}]'.format(i))
            type_check.expect(-x.ndim <= axis, axis < x.ndim)
            type_check.expect(x.shape[a] == 1)
        normalized = [a % len(shape) for a in self.axis]
        if len(set(normalized)) != len(normalized):
            raise type_check.InvalidType(
                'distinct axes', 'axis = {}'.format(self.axis))

    def forward(self, inputs):
        x, = inputs
        self._in_shape = x.shape
        if self.axis is None:
            shape = tuple(s for s in x.shape if s != 1)
        else:
            drop = {a % x.ndim for a in self.axis}
            for a in drop:
                if x.shape[a] != 1:
                    raise ValueError(
                        'squeeze: expected axis {} of size 1, got x.shape = '
                        '{}'.format(a, x.shape))
            shape = tuple(s for i, s in enumerate(x.shape) if i not in drop)
        return x.reshape(shape),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.array.reshape import reshape
        return reshape(grad_outputs[0], self._in_shape),


def squeeze(x, axis=None):
    """``x`` without its axes of length one.

    Args:
        x: the input Variable or array.
        axis: an int or a tuple of ints, the axes to remove; each must have
            length one.  ``None`` removes every axis of length one.

    >>> F.squeeze(np.zeros((1, 3, 1), np.float32)).shape
    (3,)
    >>> F.squeeze(np.zeros((1, 3, 1), np.float32), axis=-1).shape
    (1, 3)
    """
    return Squeeze(axis).apply((x,))[0]
