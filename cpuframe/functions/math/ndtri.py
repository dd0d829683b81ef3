"""Elementwise inverse of the standard normal CDF."""
import math

from cpuframe.functions.math._special_unary import SpecialUnary


class Ndtri(SpecialUnary):
    kernel = 'ndtri'
    retain = 'y'

    def grad(self, y, gy):
        from cpuframe.functions.math.exponential import exp
        return math.sqrt(2 * math.pi) * exp(0.5 * y * y) * gy


def ndtri(x):
    """Elementwise inverse of :func:`ndtr` on ``[0, 1]``.

    ``-inf`` at 0, ``inf`` at 1 and nan outside; accurate in the lower tail
    down to the smallest float64.

    >>> F.ndtri(np.array([0.5, 0.975])).array
    array([0.       , 1.95996398])
    """
    return Ndtri().apply((x,))[0]
