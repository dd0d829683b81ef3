"""Concatenated rectified linear unit."""
import numpy

from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


class CReLU(FunctionNode):
    def __init__(self, axis=1):
        if isinstance(axis, bool) or not isinstance(axis, (int, numpy.integer)):
            raise TypeError('crelu: expected an int axis, got {!r}'.format(
                axis))
        self.axis = int(axis)

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
        self.retain_inputs((0,))
        zero = x.dtype.type(0)
        y = xp.concatenate(
            (xp.maximum(x, zero), xp.maximum(-x, zero)), axis=self.axis)
        return utils.force_array(y, x.dtype),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.array.split_axis import split_axis
        x, = self.get_retained_inputs()
        g_pos, g_neg = split_axis(grad_outputs[0], 2, self.axis)
        positive = (x.array > 0).astype(x.dtype)
        negative = (x.array < 0).astype(x.dtype)
        return g_pos * positive - g_neg * negative,


def crelu(x, axis=1):
    """Concatenated ReLU: ``concat((relu(x), relu(-x)), axis)``.

    Shang et al., 2016.  The output has twice the length of ``x`` along
    ``axis``.

    Args:
        x: a float Variable or array.
        axis (int): the axis to concatenate along (negative counts from
            the end).

    Returns:
        A Variable with ``x.shape[axis]`` doubled.

    >>> F.crelu(np.array([[-1., 2.]], np.float32)).array
    array([[0., 2., 1., 0.]], dtype=float32)
    """
    return CReLU(axis).apply((x,))[0]
