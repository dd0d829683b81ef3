"""Piecewise linear approximation of the sigmoid."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


class HardSigmoid(FunctionNode):
    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        self.retain_inputs((0,))
        t = x.dtype.type
        y = xp.clip(x * t(0.2) + t(0.5), t(0), t(1))
        return utils.force_array(y, x.dtype),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        inside = (x.array > -2.5) & (x.array < 2.5)
        return HardSigmoidGrad(inside).apply((grad_outputs[0],))


class HardSigmoidGrad(FunctionNode):
    """``gx = 0.2 * gy`` where ``-2.5 < x < 2.5``, else 0; linear in ``gy``."""

    def __init__(self, inside):
        self.inside = inside

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('gy',))
        type_check.expect(in_types[0].dtype.kind == 'f',
                          in_types[0].shape == self.inside.shape)

    def forward(self, inputs):
        gy, = inputs
        gx = gy * self.inside * gy.dtype.type(0.2)
        return utils.force_array(gx, gy.dtype),

    def backward(self, indexes, grad_outputs):
        return HardSigmoidGrad(self.inside).apply((grad_outputs[0],))


def hard_sigmoid(x):
    """Hard sigmoid, ``y = clip(0.2 x + 0.5, 0, 1)``, elementwise.

    Args:
        x: a float Variable or array of any shape.

    Returns:
        A Variable of the same shape and dtype.  The gradient is 0.2 on
        ``-2.5 < x < 2.5`` and zero elsewhere.

    >>> F.hard_sigmoid(np.array([-3., 0., 1.], np.float32)).array
    array([0. , 0.5, 0.7], dtype=float32)
    """
    return HardSigmoid().apply((x,))[0]
