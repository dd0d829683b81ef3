"""Elementwise log of the standard normal CDF."""
import math

from cpuframe.functions.math._special_unary import SpecialUnary


class LogNdtr(SpecialUnary):
    kernel = 'log_ndtr'
    retain = 'x'

    def grad(self, x, gy):
        from cpuframe.functions.math.erfcx import erfcx
        return math.sqrt(2 / math.pi) / erfcx(x * (-1 / math.sqrt(2))) * gy


def log_ndtr(x):
    """Elementwise ``log(ndtr(x))``, accurate far into both tails
    (``log_ndtr(-40)`` is about -804.6, not ``-inf``).

    >>> F.log_ndtr(np.array([0.])).array
    array([-0.69314718])
    """
    return LogNdtr().apply((x,))[0]
