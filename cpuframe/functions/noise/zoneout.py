"""Zoneout: keep units of the previous state at random."""
import numbers

from cpuframe import backend, utils
from cpuframe.configuration import config
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check
from cpuframe.variable import as_variable


class Zoneout(FunctionNode):
    """``y = h * flag_h + x * flag_x`` with complementary random flags.

    Each element keeps ``h`` with probability ``ratio``.  Linear in both
    inputs for fixed flags, so every order of gradient works.
    """

    def __init__(self, zoneout_ratio):
        if isinstance(zoneout_ratio, bool) or \
                not isinstance(zoneout_ratio, numbers.Real) or \
                not 0.0 <= zoneout_ratio <= 1.0:
            raise ValueError('zoneout: expected 0 <= ratio <= 1, got '
                             '{!r}'.format(zoneout_ratio))
        self.zoneout_ratio = zoneout_ratio

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('h', 'x'))
        h_type, x_type = in_types
        type_check.expect(h_type.dtype.kind == 'f',
                          h_type.dtype == x_type.dtype,
                          h_type.shape == x_type.shape)

    def forward(self, inputs):
        h, x = inputs
        xp = backend.get_array_module(x)
        # xp.random's global state: numpy.random.seed makes it repeatable.
        flag_x = xp.random.random_sample(x.shape) >= self.zoneout_ratio
        self.flag_x = flag_x.astype(x.dtype)
        self.flag_h = (~flag_x).astype(x.dtype)
        return utils.force_array(h * self.flag_h + x * self.flag_x, x.dtype),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.noise.dropout import DropoutGrad
        gy, = grad_outputs
        masks = (self.flag_h, self.flag_x)
        return tuple(DropoutGrad(masks[i]).apply((gy,))[0] for i in indexes)


def zoneout(h, x, ratio=.5):
    """Drops elements of ``x`` and sets them to the previous ``h`` at random.

    In training mode each element of the output is ``h``'s with
    probability ``ratio`` and ``x``'s otherwise; in test mode the function
    does nothing and returns ``x``.

    See: `Zoneout: Regularizing RNNs by Randomly Preserving Hidden
    Activations <https://arxiv.org/abs/1606.01305>`_

    Args:
        h (Variable or array): Previous variable.
        x (Variable or array): Input variable, of the shape of ``h``.
        ratio (float): Zoneout ratio, ``0 <= ratio <= 1``.

    Returns:
        Variable of the shape of ``x``.

    >>> h, x = np.zeros(3, np.float32), np.ones(3, np.float32)
    >>> F.zoneout(h, x, ratio=0.).array
    array([1., 1., 1.], dtype=float32)
    """
    if config.train:
        return Zoneout(ratio).apply((h, x))[0]
    Zoneout(ratio)  # validates ratio in every mode
    return as_variable(x)
