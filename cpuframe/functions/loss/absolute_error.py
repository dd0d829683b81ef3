"""Elementwise absolute error."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.functions.loss._common import check_same_float


class AbsoluteError(FunctionNode):
    """``|x0 - x1|`` elementwise."""

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        check_same_float(in_types, ('x0', 'x1'))

    def forward(self, inputs):
        x0, x1 = inputs
        diff = x0 - x1
        self._sign = backend.get_array_module(x0).sign(diff)
        return utils.force_array(abs(diff), x0.dtype),

    def backward(self, indexes, grad_outputs):
        gx0 = grad_outputs[0] * self._sign
        return tuple(gx0 if i == 0 else -gx0 for i in indexes)


def absolute_error(x0, x1):
    """Elementwise absolute error, ``|x0 - x1|``.

    The gradient uses ``sign(x0 - x1)`` (0 where they are equal).

    Args:
        x0, x1: float arrays of the same shape and dtype.

    Returns:
        Variable of the inputs' shape and dtype.

    >>> F.absolute_error(np.array([1., 2.], np.float32),
    ...                  np.array([0., 4.], np.float32)).array
    array([1., 2.], dtype=float32)
    """
    return AbsoluteError().apply((x0, x1))[0]
