"""Exponential linear unit."""
from cpuframe import backend, utils
from cpuframe.backends import intel64
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


def _supported(arrays):
    """float32 arrays of at least one element and one dimension."""
    return intel64.all_float32(arrays) and arrays[0].ndim >= 1 and \
        arrays[0].size > 0


class ELU(FunctionNode):
    bf16_inputs = (0,)
    bf16_outputs = (0,)

    # (inputs, outputs) backward keeps, whichever route runs
    retained_for_backward = ((0,), ())

    def __init__(self, alpha=1.0):
        self.alpha = float(alpha)

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        # expm1 keeps precision for small negative x; evaluate it on
        # min(x, 0) so that large positive x does not overflow.
        neg = xp.expm1(xp.minimum(x, 0)) * x.dtype.type(self.alpha)
        return utils.force_array(xp.where(x < 0, neg, x), x.dtype),

    def intel64_supports(self, inputs):
        return _supported(inputs)

    intel64_profitable = intel64.size_rule('elu', 0)

    def forward_intel64(self, inputs):
        return intel64.native().elu_forward(inputs[0], self.alpha),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return ELUGrad(self.alpha).apply((x, grad_outputs[0]))[:1]


class ELUGrad(FunctionNode):
    """``gx = gy * (1 if x >= 0 else alpha * exp(x))``."""

    # (inputs, outputs) backward keeps, whichever route runs
    retained_for_backward = ((0, 1), ())
    bf16_inputs = (0, 1)
    bf16_outputs = (0,)

    def __init__(self, alpha):
        self.alpha = alpha

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x', 'gy'))
        type_check.expect(in_types[0].dtype.kind == 'f',
                          in_types[0].dtype == in_types[1].dtype,
                          in_types[0].shape == in_types[1].shape)

    def forward(self, inputs):
        x, gy = inputs
        xp = backend.get_array_module(x)
        slope = xp.exp(xp.minimum(x, 0)) * x.dtype.type(self.alpha)
        return utils.force_array(xp.where(x < 0, gy * slope, gy), x.dtype),

    def intel64_supports(self, inputs):
        return _supported(inputs)

    intel64_profitable = intel64.size_rule('elu', 0)

    def forward_intel64(self, inputs):
        x, gy = inputs
        return intel64.native().elu_backward(x, gy, self.alpha),

    def backward(self, indexes, grad_outputs):
        x, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        ret = []
        for i in indexes:
            if i == 0:
                # d/dx of alpha * exp(x) is itself on the negative side and 0
                # on the positive side.
                negative = (x.array < 0).astype(x.dtype)
                ret.append(ELUGrad(self.alpha).apply((x, ggx * gy))[0] *
                           negative)
            else:
                ret.append(ELUGrad(self.alpha).apply((x, ggx))[0])
        return tuple(ret)


def elu(x, alpha=1.0):
    """Exponential linear unit, elementwise.

    .. math:: y = x \\text{ if } x \\ge 0, \\quad
              y = \\alpha (e^x - 1) \\text{ if } x < 0

    Args:
        x: a float Variable or array of any shape.
        alpha (float): the scale ``alpha`` of the negative part.

    Returns:
        A Variable of the same shape and dtype.

    >>> F.elu(np.array([-1., 2.]), alpha=1.0).array
    array([-0.63212056,  2.        ])
    """
    return ELU(alpha).apply((x,))[0]
