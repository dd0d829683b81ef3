"""Parametric rectified linear unit."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


def _extended_shape(w_shape, x_ndim):
    """``W``'s shape padded to broadcast against ``x`` from axis 1 on."""
    return (1,) + tuple(w_shape) + (1,) * (x_ndim - len(w_shape) - 1)


def _reduction_axes(w_ndim, x_ndim):
    return (0,) + tuple(range(1 + w_ndim, x_ndim))


class PReLUFunction(FunctionNode):
    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x', 'W'))
        x, W = in_types
        type_check.expect(x.dtype.kind == 'f', W.dtype == x.dtype,
                          x.ndim >= W.ndim + 1)
        type_check.expect(x.shape[1:1 + type_check.eval(W.ndim)] == W.shape)

    def forward(self, inputs):
        x, W = inputs
        xp = backend.get_array_module(x, W)
        self.retain_inputs((0, 1))
        w = W.reshape(_extended_shape(W.shape, x.ndim))
        y = xp.where(x >= 0, x, x * w)
        return utils.force_array(y, x.dtype),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.array.reshape import reshape
        from cpuframe.functions.array.where import where
        from cpuframe.functions.math.sum import sum as sum_
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        negative = x.array < 0
        ret = []
        for i in indexes:
            if i == 0:
                w = reshape(W, _extended_shape(W.shape, x.ndim))
                ret.append(where(negative, gy * w, gy))
            else:
                gw = sum_(gy * x * negative.astype(x.dtype),
                          axis=_reduction_axes(W.ndim, x.ndim))
                ret.append(gw)
        return tuple(ret)


def prelu(x, W):
    """Parametric ReLU, elementwise with a learned negative slope ``W``.

    .. math:: y_i = x_i \\text{ if } x_i \\ge 0, \\quad
              y_i = W_i x_i \\text{ if } x_i < 0

    Args:
        x: a float Variable or array of shape ``(s_B, s_1, ..., s_N)``.
        W: the slopes, of shape ``(s_1, ..., s_M)`` with ``0 <= M <= N``;
            it is broadcast against ``x`` from axis 1 on (as if reshaped to
            ``(1, s_1, ..., s_M, 1, ..., 1)``).

    Returns:
        A Variable of ``x``'s shape and dtype.

    >>> x = np.array([[-1., 2.], [-3., -4.]], np.float32)
    >>> F.prelu(x, np.array([0.1, 0.5], np.float32)).array
    array([[-0.1,  2. ],
           [-0.3, -2. ]], dtype=float32)
    """
    return PReLUFunction().apply((x, W))[0]
