"""Cumulative product along an axis."""
from cpuframe import backend
from cpuframe.functions.math.cumsum import AlongAxis


class Cumprod(AlongAxis):
    _name = 'cumprod'

    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        return x.cumprod(axis=self.axis),

    def backward(self, indexes, grad_outputs):
        # gx[i] = sum_{j >= i} gy[j] * prod_{k <= j, k != i} x[k]; the inner
        # product is the cumprod of x with x[i] replaced by 1, which needs
        # no division and so is exact where x has zeros.
        from cpuframe.functions.array.broadcast import broadcast_to
        from cpuframe.functions.array.moveaxis import moveaxis
        from cpuframe.functions.array.reshape import reshape
        from cpuframe.functions.array.where import where
        from cpuframe.functions.math.sum import sum as sum_
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        shape = x.shape
        if self.axis is None:
            x, gy = reshape(x, (-1,)), reshape(gy, (-1,))
            axis = 0
        else:
            axis = self.axis % x.ndim
        xt, gt = moveaxis(x, axis, 0), moveaxis(gy, axis, 0)
        n = xt.shape[0]
        if n == 0 or x.size == 0:
            return gy * 0 if self.axis is not None else reshape(gy, shape),
        rest = xt.shape[1:]
        xp = backend.get_array_module(x.array)
        full = (n, n) + rest
        eye = xp.eye(n, dtype=bool).reshape((n, n) + (1,) * len(rest))
        eye = xp.broadcast_to(eye, full)
        # xi[i, k] = x[k] for k != i, 1 for k == i
        xi = where(eye, xp.ones(full, x.dtype),
                   broadcast_to(reshape(xt, (1,) + xt.shape), full))
        partial = cumprod(xi, axis=1)
        upper = xp.broadcast_to(
            xp.triu(xp.ones((n, n), x.dtype)).reshape(
                (n, n) + (1,) * len(rest)), full)
        gyb = broadcast_to(reshape(gt, (1,) + gt.shape), full)
        gx = moveaxis(sum_(partial * gyb * upper, axis=1), 0, axis)
        return reshape(gx, shape),


def cumprod(x, axis=None):
    """Cumulative product along ``axis``; with None, over the flattened array.

    The gradient is computed without division, so it is exact where ``x``
    has zeros, and it is itself differentiable.  It costs ``O(n ** 2)``
    along the axis.

    >>> F.cumprod(np.array([1., 2., 3.]), 0).array
    array([1., 2., 6.])
    """
    return Cumprod(axis).apply((x,))[0]
