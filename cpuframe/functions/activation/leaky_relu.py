"""Leaky rectified linear unit."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


class LeakyReLU(FunctionNode):
    def __init__(self, slope=0.2):
        self.slope = slope

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        negative = x < 0
        # With a positive slope the sign of y is the sign of x, so the output
        # can stand in for the input in backward; otherwise keep the mask.
        if self.slope > 0:
            self.retain_outputs((0,))
            self._negative = None
        else:
            self._negative = negative
        y = xp.where(negative, x * x.dtype.type(self.slope), x)
        return utils.force_array(y, x.dtype),

    def backward(self, indexes, grad_outputs):
        negative = self._negative
        if negative is None:
            y, = self.get_retained_outputs()
            negative = y.array < 0
        return LeakyReLUGrad(negative, self.slope).apply((grad_outputs[0],))


class LeakyReLUGrad(FunctionNode):
    """``gx = gy * (slope if x < 0 else 1)``; linear in ``gy``."""

    def __init__(self, negative, slope):
        self.negative = negative
        self.slope = slope

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('gy',))
        type_check.expect(in_types[0].dtype.kind == 'f',
                          in_types[0].shape == self.negative.shape)

    def forward(self, inputs):
        gy, = inputs
        xp = backend.get_array_module(gy)
        gx = xp.where(self.negative, gy * gy.dtype.type(self.slope), gy)
        return utils.force_array(gx, gy.dtype),

    def backward(self, indexes, grad_outputs):
        return LeakyReLUGrad(self.negative, self.slope).apply(
            (grad_outputs[0],))


def leaky_relu(x, slope=0.2):
    """Leaky rectified linear unit, elementwise.

    .. math:: y = x \\text{ if } x \\ge 0, \\quad y = a x \\text{ if } x < 0

    Args:
        x: a float Variable or array of any shape.
        slope (float): the slope ``a`` for negative inputs.

    Returns:
        A Variable of the same shape and dtype.

    >>> F.leaky_relu(np.array([-1., 2.], np.float32), slope=0.2).array
    array([-0.2,  2. ], dtype=float32)
    """
    return LeakyReLU(slope).apply((x,))[0]
