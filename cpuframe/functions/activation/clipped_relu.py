"""Clipped rectified linear unit."""
import numbers

from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


class ClippedReLU(FunctionNode):
    def __init__(self, z=20.0):
        if isinstance(z, bool) or not isinstance(z, numbers.Real):
            raise TypeError('clipped_relu: expected z as a real number, got '
                            '{}'.format(type(z).__name__))
        self.cap = float(z)

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        self.retain_inputs((0,))
        y = xp.clip(x, x.dtype.type(0), x.dtype.type(self.cap))
        return utils.force_array(y, x.dtype),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        inside = (x.array > 0) & (x.array < self.cap)
        return ClippedReLUGrad(inside).apply((grad_outputs[0],))


class ClippedReLUGrad(FunctionNode):
    """``gx = gy * (0 < x < z)``; linear in ``gy`` with a constant mask."""

    def __init__(self, inside):
        self.inside = inside

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('gy',))
        type_check.expect(in_types[0].dtype.kind == 'f',
                          in_types[0].shape == self.inside.shape)

    def forward(self, inputs):
        gy, = inputs
        return utils.force_array(gy * self.inside, gy.dtype),

    def backward(self, indexes, grad_outputs):
        return ClippedReLUGrad(self.inside).apply((grad_outputs[0],))


def clipped_relu(x, z=20.0):
    """Clipped rectified linear unit, ``y = min(max(0, x), z)``, elementwise.

    Args:
        x: a float Variable or array of any shape.
        z (float): the upper bound of the output.

    Returns:
        A Variable of the same shape and dtype.  The gradient is ``gy``
        where ``0 < x < z`` and zero elsewhere.

    >>> F.clipped_relu(np.array([-1., 3., 30.], np.float32), z=20.0).array
    array([ 0.,  3., 20.], dtype=float32)
    """
    return ClippedReLU(z).apply((x,))[0]


class ReLU6(ClippedReLU):
    """:class:`ClippedReLU` with the cap fixed at 6 (named so in errors)."""

    def __init__(self):
        super().__init__(6.0)


def relu6(x):
    """``y = min(max(0, x), 6)``, elementwise (Chainer 7's ``relu6``).

    It is :func:`~cpuframe.functions.clipped_relu` with ``z=6``: the
    gradient is ``gy`` where ``0 < x < 6`` and zero elsewhere.

    Args:
        x: a float Variable or array of any shape.

    Returns:
        A Variable of the same shape and dtype.

    >>> F.relu6(np.array([-1., 3., 7.], np.float32)).array
    array([0., 3., 6.], dtype=float32)
    """
    return ReLU6().apply((x,))[0]
