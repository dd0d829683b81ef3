"""Hyperbolic functions: sinh, cosh."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


def _check_float(in_types):
    type_check.argname(in_types, ('x',))
    type_check.expect(in_types[0].dtype.kind == 'f')


class Sinh(FunctionNode):
    def check_type_forward(self, in_types):
        _check_float(in_types)

    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        return utils.force_array(
            backend.get_array_module(x).sinh(x), x.dtype),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] * cosh(x),


def sinh(x):
    """Elementwise hyperbolic sine (``dy/dx = cosh x``).

    >>> F.sinh(np.array([0.], np.float32)).array
    array([0.], dtype=float32)
    """
    return Sinh().apply((x,))[0]


class Cosh(FunctionNode):
    def check_type_forward(self, in_types):
        _check_float(in_types)

    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        return utils.force_array(
            backend.get_array_module(x).cosh(x), x.dtype),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] * sinh(x),


def cosh(x):
    """Elementwise hyperbolic cosine (``dy/dx = sinh x``).

    >>> F.cosh(np.array([0.], np.float32)).array
    array([1.], dtype=float32)
    """
    return Cosh().apply((x,))[0]
