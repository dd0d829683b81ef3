"""Trigonometric functions: sin, cos, tan."""
from cpuframe.functions.math._unary import UnaryUfunc


class Sin(UnaryUfunc):
    ufunc = 'sin'
    retain = 'x'

    def grad(self, x, gy):
        return gy * cos(x)


def sin(x):
    """Elementwise sine (``dy/dx = cos x``).

    >>> F.sin(np.array([0.], np.float32)).array
    array([0.], dtype=float32)
    """
    return Sin().apply((x,))[0]


class Cos(UnaryUfunc):
    ufunc = 'cos'
    retain = 'x'

    def grad(self, x, gy):
        return gy * -sin(x)


def cos(x):
    """Elementwise cosine (``dy/dx = -sin x``).

    >>> F.cos(np.array([0.], np.float32)).array
    array([1.], dtype=float32)
    """
    return Cos().apply((x,))[0]


class Tan(UnaryUfunc):
    ufunc = 'tan'
    retain = 'y'

    def grad(self, y, gy):
        # d tan x / dx = 1 / cos^2 x = 1 + tan^2 x
        return gy * (y * y + 1.0)


def tan(x):
    """Elementwise tangent (``dy/dx = 1 + y ** 2``).

    >>> F.tan(np.array([0.], np.float32)).array
    array([0.], dtype=float32)
    """
    return Tan().apply((x,))[0]


# Chainer defines the inverse functions in this module too.
from cpuframe.functions.math.arctan2 import Arctan2, arctan2  # noqa: E402,F401
from cpuframe.functions.math.inverse_trigonometric import (  # noqa: E402,F401
    Arccos,
    Arcsin,
    Arctan,
    arccos,
    arcsin,
    arctan,
)
