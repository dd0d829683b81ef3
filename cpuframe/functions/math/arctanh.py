"""Elementwise inverse hyperbolic tangent."""
from cpuframe.functions.math._unary import UnaryUfunc


class Arctanh(UnaryUfunc):
    ufunc = 'arctanh'
    retain = 'x'

    def grad(self, x, gy):
        # d/dx arctanh x = 1 / (1 - x^2)
        return gy / (1 - x * x)


def arctanh(x):
    """Elementwise inverse hyperbolic tangent (``dy/dx = 1 / (1 - x^2)``),
    defined on (-1, 1).

    >>> F.arctanh(np.array([0.], np.float32)).array
    array([0.], dtype=float32)
    """
    return Arctanh().apply((x,))[0]
