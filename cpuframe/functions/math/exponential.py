"""Exponentials and logarithms: exp, log, log2, log10, log1p, expm1."""
import math

from cpuframe.functions.math._unary import UnaryUfunc
from cpuframe.functions.math.basic_math import Mul


class Exp(UnaryUfunc):
    # (its backward_arrays computes gradient nodes of constant settings:
    # @static_graph may replay those directly)
    _static_backward = True

    ufunc = 'exp'
    retain = 'y'

    def grad(self, y, gy):
        return gy * y

    def backward_arrays(self, indexes, grad_outputs):
        y, = self._retained_output_arrays()
        return Mul()._compute((grad_outputs[0], y))


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


class Log(UnaryUfunc):
    ufunc = 'log'
    retain = 'x'

    def grad(self, x, gy):
        return gy / x


def log(x):
    """Elementwise natural logarithm, ``y = ln x`` (``dy/dx = 1 / x``).

    >>> F.log(np.array([1., np.e], np.float64)).array
    array([0., 1.])
    """
    return Log().apply((x,))[0]


class Log2(UnaryUfunc):
    ufunc = 'log2'
    retain = 'x'

    def grad(self, x, gy):
        return gy / x * (1.0 / math.log(2.0))


def log2(x):
    """Elementwise base-2 logarithm (``dy/dx = 1 / (x ln 2)``).

    >>> F.log2(np.array([1., 8.], np.float32)).array
    array([0., 3.], dtype=float32)
    """
    return Log2().apply((x,))[0]


class Log10(UnaryUfunc):
    ufunc = 'log10'
    retain = 'x'

    def grad(self, x, gy):
        return gy / x * (1.0 / math.log(10.0))


def log10(x):
    """Elementwise base-10 logarithm (``dy/dx = 1 / (x ln 10)``).

    >>> F.log10(np.array([1., 100.])).array
    array([0., 2.])
    """
    return Log10().apply((x,))[0]


class Log1p(UnaryUfunc):
    ufunc = 'log1p'
    retain = 'x'

    def grad(self, x, gy):
        return gy / (x + 1.0)


def log1p(x):
    """Elementwise ``y = ln(1 + x)``, accurate for small ``x``.

    >>> F.log1p(np.array([0.], np.float32)).array
    array([0.], dtype=float32)
    """
    return Log1p().apply((x,))[0]


class Expm1(UnaryUfunc):
    ufunc = 'expm1'
    retain = 'y'

    def grad(self, y, gy):
        # d(e^x - 1)/dx = e^x = y + 1
        return gy * (y + 1.0)


def expm1(x):
    """Elementwise ``y = e ** x - 1``, accurate for small ``x``.

    >>> F.expm1(np.array([0.], np.float32)).array
    array([0.], dtype=float32)
    """
    return Expm1().apply((x,))[0]
