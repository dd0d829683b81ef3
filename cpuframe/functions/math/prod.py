"""Product of elements over axes."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.functions.math._reduction import expand_back, normalize_axis
from cpuframe.utils import type_check


def _exclusive_prod_forward(x):
    """``out[i] = prod_{j != i} x[j]`` along axis 0, without dividing."""
    xp = backend.get_array_module(x)
    ones = xp.ones_like(x[:1])
    left = xp.cumprod(xp.concatenate([ones, x[:-1]], axis=0), axis=0)
    right = xp.cumprod(xp.concatenate([ones, x[:0:-1]], axis=0),
                       axis=0)[::-1]
    return left * right


class ExclusiveProd(FunctionNode):
    """Along axis 0 of a 2-D ``x``: the product of all the other rows."""

    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        return _exclusive_prod_forward(x),

    def backward(self, indexes, grad_outputs):
        # d out[i] / d x[k] = prod_{j != i, k} x[j] for k != i, else 0.
        from cpuframe.functions.array.broadcast import broadcast_to
        from cpuframe.functions.array.reshape import reshape
        from cpuframe.functions.array.where import where
        from cpuframe.functions.math.sum import sum as sum_
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        xp = backend.get_array_module(x.array)
        n, m = x.shape
        eye = xp.broadcast_to(xp.eye(n, dtype=bool)[:, :, None], (n, n, m))
        xb = broadcast_to(reshape(x, (1, n, m)), (n, n, m))
        # row i: x with its i-th entry replaced by 1
        xi = where(eye, xp.ones((n, n, m), x.dtype), xb)
        # e2[k, i] = prod_{j != k} xi[j] over the j axis, moved to front
        xi_t = reshape(xi.transpose((1, 0, 2)), (n, n * m))
        e2 = reshape(ExclusiveProd().apply((xi_t,))[0], (n, n, m))
        # e2[k, i] = prod_{j != k, j != i} x[j]; zero it where k == i
        e2 = where(eye, xp.zeros((n, n, m), x.dtype), e2)
        gyb = broadcast_to(reshape(gy, (1, n, m)), (n, n, m))
        return sum_(e2 * gyb, axis=1),


class Prod(FunctionNode):
    def __init__(self, axis=None, keepdims=False):
        if axis is not None and not isinstance(axis, (int, tuple)):
            raise TypeError('prod: axis must be None, an int or a tuple of '
                            'ints, got {!r}'.format(axis))
        self.axis = axis
        self.keepdims = keepdims

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('axis',)

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')
        normalize_axis(self.axis, type_check.eval(in_types[0].ndim), 'prod')

    def forward(self, inputs):
        x, = inputs
        self._axis = normalize_axis(self.axis, x.ndim, 'prod')
        self._in_shape = x.shape
        self.retain_inputs((0,))
        return utils.force_array(
            x.prod(axis=self._axis, keepdims=self.keepdims), x.dtype),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.array.reshape import reshape
        from cpuframe.functions.array.transpose import transpose
        x, = self.get_retained_inputs()
        ndim = len(self._in_shape)
        axis = tuple(range(ndim)) if self._axis is None else self._axis
        rest = tuple(a for a in range(ndim) if a not in axis)
        perm = axis + rest
        xt = transpose(x, perm)
        n = utils.size_of_shape([self._in_shape[a] for a in axis])
        gy = expand_back(grad_outputs[0], self._in_shape, self._axis,
                          self.keepdims)
        if n == 0 or x.size == 0:
            return gy * 0,
        excl = ExclusiveProd().apply((reshape(xt, (n, -1)),))[0]
        inv = [0] * ndim
        for i, a in enumerate(perm):
            inv[a] = i
        excl = transpose(reshape(excl, xt.shape), inv)
        return gy * excl,


def prod(x, axis=None, keepdims=False):
    """Product of the elements over ``axis`` (None, an int or a tuple).

    The gradient is the product of the other elements, computed without
    division so zeros in ``x`` are handled exactly.

    >>> F.prod(np.array([[1., 2.], [3., 4.]]), axis=1).array
    array([ 2., 12.])
    """
    return Prod(axis, keepdims).apply((x,))[0]
