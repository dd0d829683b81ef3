"""Reverse the order of elements along an axis: flip, fliplr, flipud."""
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


class Flip(FunctionNode):
    def __init__(self, axis):
        if not isinstance(axis, int):
            raise TypeError('flip: axis must be an int, got '
                            '{!r}'.format(axis))
        self.axis = axis

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('axis',)

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        x_type = in_types[0]
        type_check.expect(x_type.ndim > 0)
        if self.axis >= 0:
            type_check.expect(x_type.ndim > self.axis)
        else:
            type_check.expect(x_type.ndim >= -self.axis)

    def forward(self, inputs):
        x, = inputs
        index = [slice(None)] * x.ndim
        index[self.axis] = slice(None, None, -1)
        return x[tuple(index)],

    def backward(self, indexes, grad_outputs):
        return flip(grad_outputs[0], self.axis),


def flip(x, axis):
    """Reverse ``x`` along ``axis`` (``x[..., ::-1, ...]``).

    >>> F.flip(np.arange(3.), 0).array
    array([2., 1., 0.])
    """
    return Flip(axis).apply((x,))[0]


class FlipLR(Flip):
    def __init__(self):
        super().__init__(1)

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        type_check.expect(in_types[0].ndim >= 2)


def fliplr(a):
    """Reverse the second axis (left/right) of an array with ndim >= 2.

    >>> F.fliplr(np.array([[0., 1.]])).array
    array([[1., 0.]])
    """
    return FlipLR().apply((a,))[0]


class FlipUD(Flip):
    def __init__(self):
        super().__init__(0)

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        type_check.expect(in_types[0].ndim >= 1)


def flipud(a):
    """Reverse the first axis (up/down) of an array with ndim >= 1.

    >>> F.flipud(np.array([0., 1.])).array
    array([1., 0.])
    """
    return FlipUD().apply((a,))[0]
