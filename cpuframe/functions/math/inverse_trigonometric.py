"""Inverse trigonometric functions: arcsin, arccos, arctan."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.functions.math.sqrt import rsqrt
from cpuframe.utils import type_check


def _check_float(in_types):
    type_check.argname(in_types, ('x',))
    type_check.expect(in_types[0].dtype.kind == 'f')


class Arcsin(FunctionNode):
    def check_type_forward(self, in_types):
        _check_float(in_types)

    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        return utils.force_array(
            backend.get_array_module(x).arcsin(x), x.dtype),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] * rsqrt(1.0 - x * x),


def arcsin(x):
    """Elementwise arcsine, in [-pi/2, pi/2] (``dy/dx = 1 / sqrt(1 - x ** 2)``).

    >>> F.arcsin(np.array([0.], np.float32)).array
    array([0.], dtype=float32)
    """
    return Arcsin().apply((x,))[0]


class Arccos(FunctionNode):
    def check_type_forward(self, in_types):
        _check_float(in_types)

    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        return utils.force_array(
            backend.get_array_module(x).arccos(x), x.dtype),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] * -rsqrt(1.0 - x * x),


def arccos(x):
    """Elementwise arccosine, in [0, pi] (``dy/dx = -1 / sqrt(1 - x ** 2)``).

    >>> F.arccos(np.array([0.], np.float32)).array
    array([1.5707964], dtype=float32)
    """
    return Arccos().apply((x,))[0]


class Arctan(FunctionNode):
    def check_type_forward(self, in_types):
        _check_float(in_types)

    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        return utils.force_array(
            backend.get_array_module(x).arctan(x), x.dtype),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] / (x * x + 1.0),


def arctan(x):
    """Elementwise arctangent (``dy/dx = 1 / (1 + x ** 2)``).

    >>> F.arctan(np.array([0.], np.float32)).array
    array([0.], dtype=float32)
    """
    return Arctan().apply((x,))[0]
