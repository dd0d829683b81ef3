"""Mean absolute error between two arrays."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.functions.loss._common import check_same_float


class MeanAbsoluteError(FunctionNode):
    """``mean(|x0 - x1|)`` over all elements."""

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        check_same_float(in_types, ('x0', 'x1'))

    def forward(self, inputs):
        x0, x1 = inputs
        xp = backend.get_array_module(x0)
        diff = x0 - x1
        self._sign = xp.sign(diff)
        return utils.force_array(
            xp.asarray(abs(diff).sum() / diff.size, dtype=x0.dtype)),

    def backward(self, indexes, grad_outputs):
        gx0 = (grad_outputs[0] * (1.0 / self._sign.size)) * self._sign
        return tuple(gx0 if i == 0 else -gx0 for i in indexes)


def mean_absolute_error(x0, x1):
    """Mean absolute error, ``sum(|x0 - x1|) / x0.size``.

    The gradient uses ``sign(x0 - x1)`` (0 where they are equal).

    Args:
        x0, x1: float arrays of the same shape and dtype.

    Returns:
        Variable: a scalar of the inputs' dtype.

    >>> F.mean_absolute_error(np.array([1., -3.], np.float32),
    ...                       np.array([0., 0.], np.float32)).array
    array(2., dtype=float32)
    """
    return MeanAbsoluteError().apply((x0, x1))[0]
