"""Elementwise inverse complementary error function."""
import math

from cpuframe.functions.math._special_unary import SpecialUnary


class ErfcInv(SpecialUnary):
    kernel = 'erfcinv'
    retain = 'y'

    def grad(self, y, gy):
        from cpuframe.functions.math.exponential import exp
        return (-math.sqrt(math.pi) / 2) * exp(y * y) * gy


def erfcinv(x):
    """Elementwise inverse of :func:`erfc` on ``[0, 2]``.

    ``inf`` at 0, ``-inf`` at 2 and nan outside.  Accurate down to the
    smallest positive float64 (``erfcinv(1e-300)`` is about 26.9).

    >>> F.erfcinv(np.array([1., 0.5])).array
    array([0.        , 0.47693628])
    """
    return ErfcInv().apply((x,))[0]
