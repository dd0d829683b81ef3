"""Extract a diagonal."""
from cpuframe import backend
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


def _diag_index(xp, n1, n2, offset):
    """Row and column indices of the ``offset`` diagonal of an n1 x n2."""
    if offset >= 0:
        k = max(0, min(n1, n2 - offset))
        i = xp.arange(k)
        return i, i + offset
    k = max(0, min(n1 + offset, n2))
    i = xp.arange(k)
    return i - offset, i


class Diagonal(FunctionNode):
    def __init__(self, offset, axis1, axis2):
        self.offset = offset
        self.axis1 = axis1
        self.axis2 = axis2

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('axis1', 'axis2')

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        x_type = in_types[0]
        type_check.expect(x_type.ndim >= 2)
        ndim = type_check.eval(x_type.ndim)
        for name, a in (('axis1', self.axis1), ('axis2', self.axis2)):
            if not -ndim <= a < ndim:
                raise type_check.InvalidType(
                    '-x.ndim <= {} < x.ndim'.format(name),
                    '{} = {} with x.ndim = {}'.format(name, a, ndim))
        if self.axis1 % ndim == self.axis2 % ndim:
            raise ValueError('diagonal: axis1 ({}) and axis2 ({}) must '
                             'differ'.format(self.axis1, self.axis2))

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        self._in_shape = x.shape
        return xp.ascontiguousarray(
            x.diagonal(self.offset, self.axis1, self.axis2)),

    def backward(self, indexes, grad_outputs):
        return DiagonalGrad(self._in_shape, self.offset, self.axis1,
                            self.axis2).apply(grad_outputs)


class DiagonalGrad(FunctionNode):
    """Scatter a diagonal back into zeros of the input's shape."""

    def __init__(self, shape, offset, axis1, axis2):
        self.shape = shape
        self.offset = offset
        self.axis1 = axis1
        self.axis2 = axis2

    def forward(self, inputs):
        gy, = inputs
        xp = backend.get_array_module(gy)
        gx = xp.zeros(self.shape, gy.dtype)
        view = xp.moveaxis(gx, (self.axis1, self.axis2), (-2, -1))
        i, j = _diag_index(xp, view.shape[-2], view.shape[-1], self.offset)
        view[..., i, j] = gy
        return gx,

    def backward(self, indexes, grad_outputs):
        return diagonal(grad_outputs[0], self.offset, self.axis1,
                        self.axis2),


def diagonal(x, offset=0, axis1=0, axis2=1):
    """The ``offset`` diagonal of ``x`` over ``axis1`` and ``axis2``.

    Same as ``numpy.diagonal``: the two axes are removed and the diagonal
    is appended as the last axis.

    >>> F.diagonal(np.arange(4.).reshape(2, 2)).array
    array([0., 3.])
    """
    return Diagonal(offset, axis1, axis2).apply((x,))[0]
