"""Elementwise inverse error function."""
import math

from cpuframe.functions.math._special_unary import SpecialUnary


class ErfInv(SpecialUnary):
    kernel = 'erfinv'
    retain = 'y'

    def grad(self, y, gy):
        from cpuframe.functions.math.exponential import exp
        return (math.sqrt(math.pi) / 2) * exp(y * y) * gy


def erfinv(x):
    """Elementwise inverse of :func:`erf` on ``[-1, 1]``.

    ``+-inf`` at ``+-1`` and nan outside the interval.  Computed by NumPy
    (series start, then Newton steps on erf, or on ``log erfc`` in the
    tails); float64 results are within about 1e-15 relative.

    >>> F.erfinv(np.array([0., 0.5])).array
    array([0.        , 0.47693628])
    """
    return ErfInv().apply((x,))[0]
