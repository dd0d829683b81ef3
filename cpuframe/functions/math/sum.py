"""Sums and means over axes."""
from cpuframe import utils
from cpuframe.function_node import FunctionNode
from cpuframe.functions.math._reduction import (
    expand_back,
    expand_back_array,
    normalize_axis,
)
from cpuframe.utils import type_check


class Sum(FunctionNode):
    # (its backward_arrays computes gradient nodes of constant settings:
    # @static_graph may replay those directly)
    _static_backward = True

    def __init__(self, axis=None, keepdims=False):
        self.axis = axis
        self.keepdims = keepdims

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('axis',)

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')
        # (validates the axes; forward normalizes them again for itself)
        normalize_axis(self.axis, type_check.eval(in_types[0].ndim), 'sum')

    def forward(self, inputs):
        x, = inputs
        self._axis = normalize_axis(self.axis, x.ndim, 'sum')
        self._in_shape = x.shape
        return utils.force_array(
            x.sum(axis=self._axis, keepdims=self.keepdims), x.dtype),

    def backward(self, indexes, grad_outputs):
        return expand_back(grad_outputs[0], self._in_shape, self._axis,
                            self.keepdims),

    def backward_arrays(self, indexes, grad_outputs):
        return expand_back_array(grad_outputs[0], self._in_shape,
                                 self._axis, self.keepdims),


def sum(x, axis=None, keepdims=False):  # noqa: A001 - Chainer's name
    """Sum of the elements over ``axis`` (an int, a tuple or None for all)."""
    return Sum(axis, keepdims).apply((x,))[0]


def mean(x, axis=None, weights=None, keepdims=False):
    """Mean over ``axis``; with ``weights``, the weighted mean over ``axis``."""
    if weights is not None:
        from cpuframe.functions.array.broadcast import broadcast_to
        from cpuframe.functions.array.reshape import reshape
        if axis is None or isinstance(axis, tuple) and len(axis) != 1:
            raise ValueError('mean: weights need a single int axis, got '
                             'axis={}'.format(axis))
        ax = axis if isinstance(axis, int) else axis[0]
        ax %= x.ndim
        shape = [1] * x.ndim
        shape[ax] = x.shape[ax]
        w = broadcast_to(reshape(weights, tuple(shape)), x.shape)
        return sum(x * w, axis=axis, keepdims=keepdims) / sum(weights)
    ax = normalize_axis(axis, x.ndim, 'mean')
    count = x.size if ax is None else utils.size_of_shape(
        [x.shape[a] for a in ax])
    return sum(x, axis=axis, keepdims=keepdims) * (
        1.0 / count if count else float("nan"))


# Chainer defines F.sum_to in this module.
from cpuframe.functions.array.sum_to import SumTo, sum_to  # noqa: E402,F401
