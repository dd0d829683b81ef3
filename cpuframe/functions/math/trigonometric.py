"""Trigonometric functions: sin, cos, tan."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


def _check_float(in_types):
    type_check.argname(in_types, ('x',))
    type_check.expect(in_types[0].dtype.kind == 'f')


class Sin(FunctionNode):
    def check_type_forward(self, in_types):
        _check_float(in_types)

    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        return utils.force_array(backend.get_array_module(x).sin(x), x.dtype),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] * cos(x),


def sin(x):
    """Elementwise sine (``dy/dx = cos x``).

    >>> F.sin(np.array([0.], np.float32)).array
    array([0.], dtype=float32)
    """
    return Sin().apply((x,))[0]


class Cos(FunctionNode):
    def check_type_forward(self, in_types):
        _check_float(in_types)

    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        return utils.force_array(backend.get_array_module(x).cos(x), x.dtype),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] * -sin(x),


def cos(x):
    """Elementwise cosine (``dy/dx = -sin x``).

    >>> F.cos(np.array([0.], np.float32)).array
    array([1.], dtype=float32)
    """
    return Cos().apply((x,))[0]


class Tan(FunctionNode):
    def check_type_forward(self, in_types):
        _check_float(in_types)

    def forward(self, inputs):
        x, = inputs
        self.retain_outputs((0,))
        return utils.force_array(backend.get_array_module(x).tan(x), x.dtype),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        # d tan x / dx = 1 / cos^2 x = 1 + tan^2 x
        return grad_outputs[0] * (y * y + 1.0),


def tan(x):
    """Elementwise tangent (``dy/dx = 1 + y ** 2``).

    >>> F.tan(np.array([0.], np.float32)).array
    array([0.], dtype=float32)
    """
    return Tan().apply((x,))[0]
