"""Rectified linear unit."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


class ReLU(FunctionNode):
    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        self.retain_outputs((0,))
        return utils.force_array(xp.maximum(x, 0, dtype=x.dtype), x.dtype),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        return ReLUGrad(y.array).apply((grad_outputs[0],))


class ReLUGrad(FunctionNode):
    """``gx = gy * (y > 0)`` with the output ``y`` of relu as a constant.

    The map is linear in ``gy`` and the mask is piecewise constant in ``x``,
    so its own gradient is the same map applied to ``ggx``.
    """

    def __init__(self, y):
        self.y = y

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('gy',))
        type_check.expect(in_types[0].dtype.kind == 'f',
                          in_types[0].shape == self.y.shape)

    def forward(self, inputs):
        gy, = inputs
        return utils.force_array(gy * (self.y > 0), gy.dtype),

    def backward(self, indexes, grad_outputs):
        return ReLUGrad(self.y).apply((grad_outputs[0],))


def relu(x):
    """Rectified linear unit, ``y = max(0, x)``, elementwise.

    Args:
        x: a float Variable or array of any shape.

    Returns:
        A Variable of the same shape and dtype.  The gradient is
        ``gy * (y > 0)``, computed from the output (``x`` is not kept).

    >>> F.relu(np.array([-1., 0., 2.], np.float32)).array
    array([0., 0., 2.], dtype=float32)
    """
    return ReLU().apply((x,))[0]
