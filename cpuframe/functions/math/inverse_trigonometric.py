"""Inverse trigonometric functions: arcsin, arccos, arctan."""
from cpuframe.functions.math._unary import UnaryUfunc
from cpuframe.functions.math.sqrt import rsqrt


class Arcsin(UnaryUfunc):
    ufunc = 'arcsin'
    retain = 'x'

    def grad(self, x, gy):
        return gy * rsqrt(1.0 - x * x)


def arcsin(x):
    """Elementwise arcsine, in [-pi/2, pi/2] (``dy/dx = 1 / sqrt(1 - x ** 2)``).

    >>> F.arcsin(np.array([0.], np.float32)).array
    array([0.], dtype=float32)
    """
    return Arcsin().apply((x,))[0]


class Arccos(UnaryUfunc):
    ufunc = 'arccos'
    retain = 'x'

    def grad(self, x, gy):
        return gy * -rsqrt(1.0 - x * x)


def arccos(x):
    """Elementwise arccosine, in [0, pi] (``dy/dx = -1 / sqrt(1 - x ** 2)``).

    >>> F.arccos(np.array([0.], np.float32)).array
    array([1.5707964], dtype=float32)
    """
    return Arccos().apply((x,))[0]


class Arctan(UnaryUfunc):
    ufunc = 'arctan'
    retain = 'x'

    def grad(self, x, gy):
        return gy / (x * x + 1.0)


def arctan(x):
    """Elementwise arctangent (``dy/dx = 1 / (1 + x ** 2)``).

    >>> F.arctan(np.array([0.], np.float32)).array
    array([0.], dtype=float32)
    """
    return Arctan().apply((x,))[0]
