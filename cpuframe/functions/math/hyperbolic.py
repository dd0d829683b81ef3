"""Hyperbolic functions: sinh, cosh."""
from cpuframe.functions.math._unary import UnaryUfunc


class Sinh(UnaryUfunc):
    ufunc = 'sinh'
    retain = 'x'

    def grad(self, x, gy):
        return gy * cosh(x)


def sinh(x):
    """Elementwise hyperbolic sine (``dy/dx = cosh x``).

    >>> F.sinh(np.array([0.], np.float32)).array
    array([0.], dtype=float32)
    """
    return Sinh().apply((x,))[0]


class Cosh(UnaryUfunc):
    ufunc = 'cosh'
    retain = 'x'

    def grad(self, x, gy):
        return gy * sinh(x)


def cosh(x):
    """Elementwise hyperbolic cosine (``dy/dx = sinh x``).

    >>> F.cosh(np.array([0.], np.float32)).array
    array([1.], dtype=float32)
    """
    return Cosh().apply((x,))[0]
