"""Swish activation with a broadcast parameter ``beta``."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


def _extended_shape(beta_shape, x_ndim):
    return (1,) + tuple(beta_shape) + (1,) * (x_ndim - len(beta_shape) - 1)


def _reduction_axes(beta_ndim, x_ndim):
    return (0,) + tuple(range(1 + beta_ndim, x_ndim))


def _sigmoid(xp, z):
    half = z.dtype.type(0.5)
    return xp.tanh(z * half) * half + half


class Swish(FunctionNode):
    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x', 'beta'))
        x, beta = in_types
        type_check.expect(x.dtype.kind == 'f', beta.dtype == x.dtype,
                          x.ndim >= beta.ndim + 1)
        type_check.expect(
            x.shape[1:1 + type_check.eval(beta.ndim)] == beta.shape)

    def forward(self, inputs):
        x, beta = inputs
        xp = backend.get_array_module(x, beta)
        self.retain_inputs((0, 1))
        self.retain_outputs((0,))
        b = beta.reshape(_extended_shape(beta.shape, x.ndim))
        y = x * _sigmoid(xp, x * b)
        return utils.force_array(y, x.dtype),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.activation.sigmoid import sigmoid
        from cpuframe.functions.array.broadcast import broadcast_to
        from cpuframe.functions.array.reshape import reshape
        from cpuframe.functions.math.sum import sum as sum_
        x, beta = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        b = broadcast_to(
            reshape(beta, _extended_shape(beta.shape, x.ndim)), x.shape)
        s = sigmoid(x * b)
        # d/dx x s(bx) = s + b y (1 - s);  d/db x s(bx) = x y (1 - s)
        y_one_minus_s = y * (1.0 - s)
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(gy * (s + b * y_one_minus_s))
            else:
                ret.append(sum_(gy * x * y_one_minus_s,
                                axis=_reduction_axes(beta.ndim, x.ndim)))
        return tuple(ret)


def swish(x, beta):
    """Swish activation, ``y = x * sigmoid(beta * x)`` (Ramachandran et al.).

    ``f(x, 0) = x / 2`` and ``f(x, beta)`` tends to ``max(0, x)`` as beta
    grows.

    Args:
        x: a float Variable or array of shape ``(s_B, s_1, ..., s_N)``.
        beta: a Variable or array of shape ``(s_1, ..., s_M)``,
            ``0 <= M <= N``, broadcast against ``x`` from axis 1 on (as if
            reshaped to ``(1, s_1, ..., s_M, 1, ..., 1)``).

    Returns:
        A Variable of ``x``'s shape and dtype.

    >>> F.swish(np.array([[0., 2.]], np.float32),
    ...         np.array([1., 0.], np.float32)).array
    array([[0., 1.]], dtype=float32)
    """
    return Swish().apply((x, beta))[0]
