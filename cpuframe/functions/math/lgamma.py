"""Elementwise log-gamma function."""
from cpuframe.functions.math._special_unary import SpecialUnary


class LGamma(SpecialUnary):
    kernel = 'lgamma'
    retain = 'x'

    def grad(self, x, gy):
        from cpuframe.functions.math.digamma import digamma
        return digamma(x) * gy


def lgamma(x):
    """Elementwise ``log |Gamma(x)|`` (SciPy's ``gammaln``).

    inf at the poles ``0, -1, -2, ...`` and at ``+-inf``; the gradient is
    :func:`digamma`.  Computed by NumPy (no SciPy needed): float64 results
    agree with the exact values to about 1e-14 relative (absolute near the
    zeros at 1 and 2, and relative error grows near the zeros of lgamma on
    the negative axis, as for any floating-point evaluation).

    >>> F.lgamma(np.array([1., 3., 0.5])).array
    array([0.        , 0.69314718, 0.57236494])
    """
    return LGamma().apply((x,))[0]
