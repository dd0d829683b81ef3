"""Mean squared error between two arrays."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.functions.loss._common import check_same_float
from cpuframe.functions.math.basic_math import Mul, MulConstant, Neg, Sub


class MeanSquaredError(FunctionNode):
    """``mean((x0 - x1) ** 2)`` over all elements."""

    # (its backward_arrays computes gradient nodes of constant settings:
    # @static_graph may replay those directly)
    _static_backward = True

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        check_same_float(in_types, ('x0', 'x1'))

    def forward(self, inputs):
        x0, x1 = inputs
        self.retain_inputs((0, 1))
        xp = backend.get_array_module(x0)
        diff = (x0 - x1).ravel()
        return utils.force_array(
            xp.asarray(diff.dot(diff) / diff.size, dtype=x0.dtype)),

    def backward(self, indexes, grad_outputs):
        x0, x1 = self.get_retained_inputs()
        gx0 = (x0 - x1) * (grad_outputs[0] * (2.0 / x0.size))
        return tuple(gx0 if i == 0 else -gx0 for i in indexes)

    def backward_arrays(self, indexes, grad_outputs):
        x0, x1 = self._retained_input_arrays()
        gy, = grad_outputs
        diff, = Sub()._compute((x0, x1))
        scaled, = MulConstant(gy.dtype.type(2.0 / x0.size))._compute((gy,))
        gx0, = Mul()._compute((diff, scaled))
        return tuple(gx0 if i == 0 else Neg()._compute((gx0,))[0]
                     for i in indexes)


def mean_squared_error(x0, x1):
    """Mean squared error, ``sum((x0 - x1) ** 2) / x0.size``.

    Args:
        x0, x1: float arrays of the same shape and dtype.

    Returns:
        Variable: a scalar of the inputs' dtype.

    >>> F.mean_squared_error(np.array([1., 2.], np.float32),
    ...                      np.array([0., 0.], np.float32)).array
    array(2.5, dtype=float32)
    """
    return MeanSquaredError().apply((x0, x1))[0]
