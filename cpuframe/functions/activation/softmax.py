"""Softmax along an axis."""
import numpy

from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


def _check_axis(axis, where):
    if isinstance(axis, bool) or not isinstance(axis, (int, numpy.integer)):
        raise TypeError('{}: expected an int axis, got {!r}'.format(
            where, axis))
    return int(axis)


class Softmax(FunctionNode):
    def __init__(self, axis=1):
        self.axis = _check_axis(axis, 'softmax')

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
        y = x - x.max(axis=self.axis, keepdims=True)
        xp.exp(y, out=y)
        y /= y.sum(axis=self.axis, keepdims=True)
        return utils.force_array(y, x.dtype),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        return SoftmaxGrad(self.axis).apply((y, grad_outputs[0]))


class SoftmaxGrad(FunctionNode):
    """``gx = y * gy - y * sum(y * gy, axis)`` from the softmax output."""

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
        gx = y * gy
        gx -= y * gx.sum(axis=self.axis, keepdims=True)
        return utils.force_array(gx, y.dtype),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.math.sum import sum as sum_
        y, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        ret = []
        for i in indexes:
            if i == 0:
                # d/dy_k <ggx, gx> = ggx_k gy_k - ggx_k <y, gy> - gy_k <y, ggx>
                s_gy = sum_(y * gy, axis=self.axis, keepdims=True)
                s_ggx = sum_(y * ggx, axis=self.axis, keepdims=True)
                ret.append(ggx * gy - ggx * s_gy - gy * s_ggx)
            else:
                # the map is symmetric in (gy, ggx) for a fixed y
                ret.append(SoftmaxGrad(self.axis).apply((y, ggx))[0])
        return tuple(ret)


def softmax(x, axis=1):
    """Softmax along ``axis``: ``y_i = exp(x_i) / sum_j exp(x_j)``.

    The maximum along ``axis`` is subtracted first, so large inputs do not
    overflow.  Higher-order gradients are supported.

    Args:
        x: a float Variable or array.
        axis (int): the axis to normalize over (negative counts from the
            end).

    Returns:
        A Variable of ``x``'s shape and dtype whose entries along ``axis``
        are positive and sum to one.

    >>> F.softmax(np.array([[0., 0.]], np.float32)).array
    array([[0.5, 0.5]], dtype=float32)
    """
    return Softmax(axis).apply((x,))[0]
