"""Cumulative sum along an axis."""
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


class AlongAxis(FunctionNode):
    """A cumulative op over one axis (or the flattened array when None):
    checks ``axis`` and the input; subclasses set ``_name``."""

    _name = None

    def __init__(self, axis=None):
        if axis is not None and (isinstance(axis, bool) or
                                 not isinstance(axis, int)):
            raise TypeError('{}: axis must be None or an int, got '
                            '{!r}'.format(self._name, axis))
        self.axis = axis

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('axis',)

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        x_type = in_types[0]
        type_check.expect(x_type.dtype.kind == 'f')
        if self.axis is not None:
            if self.axis >= 0:
                type_check.expect(self.axis < x_type.ndim)
            else:
                type_check.expect(-self.axis - 1 < x_type.ndim)


class Cumsum(AlongAxis):
    _name = 'cumsum'

    def forward(self, inputs):
        x, = inputs
        self._in_shape = x.shape
        return x.cumsum(axis=self.axis),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.array.flip import flip
        from cpuframe.functions.array.reshape import reshape
        gy, = grad_outputs
        axis = 0 if self.axis is None else self.axis
        gx = flip(cumsum(flip(gy, axis), axis), axis)
        if self.axis is None:
            gx = reshape(gx, self._in_shape)
        return gx,


def cumsum(x, axis=None):
    """Cumulative sum along ``axis``; with None, over the flattened array.

    >>> F.cumsum(np.array([1., 2., 3.]), 0).array
    array([1., 3., 6.])
    """
    return Cumsum(axis).apply((x,))[0]
