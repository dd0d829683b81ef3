"""Log of the sum of exponentials, computed stably."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.functions.math._reduction import expand_back, normalize_axis
from cpuframe.utils import type_check


class LogSumExp(FunctionNode):
    def __init__(self, axis=None):
        if axis is not None and not isinstance(axis, (int, tuple)):
            raise TypeError('logsumexp: axis must be None, an int or a '
                            'tuple of ints, got {!r}'.format(axis))
        self.axis = axis

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('axis',)

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')
        normalize_axis(self.axis, type_check.eval(in_types[0].ndim),
                        'logsumexp')

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        self._axis = normalize_axis(self.axis, x.ndim, 'logsumexp')
        self._in_shape = x.shape
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        m = x.max(axis=self._axis, keepdims=True)
        m = xp.where(xp.isfinite(m), m, xp.zeros_like(m))
        y = xp.log(xp.exp(x - m).sum(axis=self._axis, keepdims=True)) + m
        if self._axis is None:
            y = y.reshape(())
        else:
            y = y.squeeze(self._axis)
        return utils.force_array(y, x.dtype),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.math.exponential import exp
        x, = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        yb = expand_back(y, self._in_shape, self._axis, False)
        gb = expand_back(grad_outputs[0], self._in_shape, self._axis, False)
        return gb * exp(x - yb),


def logsumexp(x, axis=None):
    """``log(sum(exp(x), axis))``, shifted by the max for stability.

    Args:
        x: a float Variable or array.
        axis: None (all axes), an int or a tuple of ints.

    >>> F.logsumexp(np.zeros(4, np.float32)).array  # log 4
    array(1.3862944, dtype=float32)
    """
    return LogSumExp(axis).apply((x,))[0]
