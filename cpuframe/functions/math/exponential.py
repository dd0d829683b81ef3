"""Exponentials and logarithms: exp, log, log2, log10, log1p, expm1."""
import math

from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


def _check_float(in_types):
    type_check.argname(in_types, ('x',))
    type_check.expect(in_types[0].dtype.kind == 'f')


class Exp(FunctionNode):
    def check_type_forward(self, in_types):
        _check_float(in_types)

    def forward(self, inputs):
        x, = inputs
        self.retain_outputs((0,))
        return utils.force_array(backend.get_array_module(x).exp(x), x.dtype),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        return grad_outputs[0] * y,


def exp(x):
    """Elementwise exponential, ``y = e ** x``.

    Args:
        x: a float Variable or array of any shape.

    Returns:
        A Variable of the same shape and dtype.

    >>> F.exp(np.array([0., 1.])).array
    array([1.        , 2.71828183])
    """
    return Exp().apply((x,))[0]


class Log(FunctionNode):
    def check_type_forward(self, in_types):
        _check_float(in_types)

    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        return utils.force_array(backend.get_array_module(x).log(x), x.dtype),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] / x,


def log(x):
    """Elementwise natural logarithm, ``y = ln x`` (``dy/dx = 1 / x``).

    >>> F.log(np.array([1., np.e], np.float64)).array
    array([0., 1.])
    """
    return Log().apply((x,))[0]


class Log2(FunctionNode):
    def check_type_forward(self, in_types):
        _check_float(in_types)

    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        return utils.force_array(
            backend.get_array_module(x).log2(x), x.dtype),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] / x * (1.0 / math.log(2.0)),


def log2(x):
    """Elementwise base-2 logarithm (``dy/dx = 1 / (x ln 2)``).

    >>> F.log2(np.array([1., 8.], np.float32)).array
    array([0., 3.], dtype=float32)
    """
    return Log2().apply((x,))[0]


class Log10(FunctionNode):
    def check_type_forward(self, in_types):
        _check_float(in_types)

    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        return utils.force_array(
            backend.get_array_module(x).log10(x), x.dtype),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] / x * (1.0 / math.log(10.0)),


def log10(x):
    """Elementwise base-10 logarithm (``dy/dx = 1 / (x ln 10)``).

    >>> F.log10(np.array([1., 100.])).array
    array([0., 2.])
    """
    return Log10().apply((x,))[0]


class Log1p(FunctionNode):
    def check_type_forward(self, in_types):
        _check_float(in_types)

    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        return utils.force_array(
            backend.get_array_module(x).log1p(x), x.dtype),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] / (x + 1.0),


def log1p(x):
    """Elementwise ``y = ln(1 + x)``, accurate for small ``x``.

    >>> F.log1p(np.array([0.], np.float32)).array
    array([0.], dtype=float32)
    """
    return Log1p().apply((x,))[0]


class Expm1(FunctionNode):
    def check_type_forward(self, in_types):
        _check_float(in_types)

    def forward(self, inputs):
        x, = inputs
        self.retain_outputs((0,))
        return utils.force_array(
            backend.get_array_module(x).expm1(x), x.dtype),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        # d(e^x - 1)/dx = e^x = y + 1
        return grad_outputs[0] * (y + 1.0),


def expm1(x):
    """Elementwise ``y = e ** x - 1``, accurate for small ``x``.

    >>> F.expm1(np.array([0.], np.float32)).array
    array([0.], dtype=float32)
    """
    return Expm1().apply((x,))[0]
