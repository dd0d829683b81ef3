"""Elementwise digamma function."""
from cpuframe.functions.math._special_unary import SpecialUnary


class DiGamma(SpecialUnary):
    kernel = 'digamma'
    retain = 'x'

    def grad(self, x, gy):
        from cpuframe.functions.math.polygamma import polygamma
        xp = x.xp
        return polygamma(xp.ones(x.shape, xp.int32), x) * gy


def digamma(x):
    """Elementwise digamma function ``psi(x) = d/dx log Gamma(x)``.

    As SciPy's ``psi``: nan at ``-1, -2, ...`` and ``-inf``, ``-inf`` at
    ``+0`` and ``+inf`` at ``-0``.  The gradient is ``polygamma(1, x)``.
    Computed by NumPy; float64 results are within a few ulp (relative, also
    around the positive root 1.4616...).

    >>> F.digamma(np.array([1.])).array
    array([-0.57721566])
    """
    return DiGamma().apply((x,))[0]
