"""Logarithm of the softmax along an axis."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.functions.activation.softmax import _check_axis
from cpuframe.utils import type_check


def _logsumexp(xp, x, axis):
    m = x.max(axis=axis, keepdims=True)
    s = xp.exp(x - m).sum(axis=axis, keepdims=True)
    return m + xp.log(s)


class LogSoftmax(FunctionNode):
    def __init__(self, axis=1):
        self.axis = _check_axis(axis, 'log_softmax')

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('axis',)

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        x = in_types[0]
        axis = type_check.make_variable(self.axis, 'axis')
        type_check.expect(x.dtype.kind == 'f',
                          -x.ndim <= axis, axis < x.ndim)

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        self.retain_outputs((0,))
        y = x - _logsumexp(xp, x, self.axis)
        return utils.force_array(y, x.dtype),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        return LogSoftmaxGrad(self.axis).apply((y, grad_outputs[0]))


class LogSoftmaxGrad(FunctionNode):
    """``gx = gy - exp(y) * sum(gy, axis)`` from the log-softmax output."""

    def __init__(self, axis):
        self.axis = axis

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('y', 'gy'))
        type_check.expect(in_types[0].dtype.kind == 'f',
                          in_types[0].dtype == in_types[1].dtype,
                          in_types[0].shape == in_types[1].shape)

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        y, gy = inputs
        xp = backend.get_array_module(y)
        gx = gy - xp.exp(y) * gy.sum(axis=self.axis, keepdims=True)
        return utils.force_array(gx, y.dtype),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.math.exponential import exp
        from cpuframe.functions.math.sum import sum as sum_
        y, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        p = exp(y)
        ret = []
        for i in indexes:
            if i == 0:
                # d/dy_k <ggx, gx> = -ggx_k p_k sum(gy)
                ret.append(-ggx * p * sum_(gy, axis=self.axis, keepdims=True))
            else:
                # d/dgy_k <ggx, gx> = ggx_k - <ggx, p>
                ret.append(ggx - sum_(ggx * p, axis=self.axis, keepdims=True))
        return tuple(ret)


def log_softmax(x, axis=1):
    """Log of the softmax along ``axis``: ``y_i = x_i - log sum_j exp(x_j)``.

    Computed as ``x - m - log(sum(exp(x - m)))`` with ``m`` the maximum
    along ``axis``, which neither overflows nor loses the small
    probabilities that ``log(softmax(x))`` would round to ``-inf``.
    Higher-order gradients are supported.

    Args:
        x: a float Variable or array.
        axis (int): the axis to normalize over (negative counts from the
            end).

    Returns:
        A Variable of ``x``'s shape and dtype.

    >>> F.log_softmax(np.array([[0., 0.]], np.float64)).array
    array([[-0.69314718, -0.69314718]])
    """
    return LogSoftmax(axis).apply((x,))[0]
