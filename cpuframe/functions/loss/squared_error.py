"""Elementwise squared error."""
from cpuframe import utils
from cpuframe.function_node import FunctionNode
from cpuframe.functions.loss._common import check_same_float


class SquaredError(FunctionNode):
    """``(x0 - x1) ** 2`` elementwise."""

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        check_same_float(in_types, ('x0', 'x1'))

    def forward(self, inputs):
        x0, x1 = inputs
        self.retain_inputs((0, 1))
        diff = x0 - x1
        diff *= diff
        return utils.force_array(diff, x0.dtype),

    def backward(self, indexes, grad_outputs):
        x0, x1 = self.get_retained_inputs()
        gx0 = (x0 - x1) * grad_outputs[0] * 2.0
        return tuple(gx0 if i == 0 else -gx0 for i in indexes)


def squared_error(x0, x1):
    """Elementwise squared error, ``(x0 - x1) ** 2``.

    Args:
        x0, x1: float arrays of the same shape and dtype.

    Returns:
        Variable of the inputs' shape and dtype.

    >>> F.squared_error(np.array([1., 2.], np.float32),
    ...                 np.array([0., 4.], np.float32)).array
    array([1., 4.], dtype=float32)
    """
    return SquaredError().apply((x0, x1))[0]


# Chainer defines F.squared_difference (the same function) in this module.
from cpuframe.functions.math.squared_difference import (  # noqa: E402,F401
    squared_difference,
)
