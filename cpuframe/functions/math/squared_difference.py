"""Elementwise squared difference ``(x1 - x2) ** 2``."""
from cpuframe import utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


class SquaredDifference(FunctionNode):
    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x1', 'x2'))
        x1, x2 = in_types
        type_check.expect(x1.dtype.kind == 'f', x1.dtype == x2.dtype,
                          x1.shape == x2.shape)

    def forward(self, inputs):
        x1, x2 = inputs
        self.retain_inputs((0, 1))
        d = x1 - x2
        return utils.force_array(d * d, x1.dtype),

    def backward(self, indexes, grad_outputs):
        x1, x2 = self.get_retained_inputs()
        gx = grad_outputs[0] * (x1 - x2) * 2.0
        return tuple(gx if i == 0 else -gx for i in indexes)


def squared_difference(x1, x2):
    """Elementwise ``(x1 - x2) ** 2`` of two same-shape float arrays.

    >>> F.squared_difference(np.array([1., 2.]), np.array([3., 2.])).array
    array([4., 0.])
    """
    return SquaredDifference().apply((x1, x2))[0]
