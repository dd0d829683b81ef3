"""The Gumbel (type-I extreme value) distribution."""
import math

from cpuframe import distribution
from cpuframe.distributions import _loc_scale
from cpuframe.functions.math.exponential import exp, log
from cpuframe.functions.math.lgamma import lgamma
from cpuframe.utils import cache

_EULER = 0.57721566490153286


class Gumbel(_loc_scale.LocScale):
    """Gumbel distribution
    ``p(x) = exp(-z - exp(-z)) / scale`` with ``z = (x - loc) / scale``.

    Args:
        loc: the location (mode).
        scale: the positive scale.

    Sampling is reparameterised: ``loc - scale log(-log u)``.
    """

    @cache.cached_property
    def _log_scale(self):
        return log(self.scale)

    @cache.cached_property
    def entropy(self):
        return self._log_scale + (_EULER + 1)

    def cdf(self, x):
        return exp(-exp(-(x - self.loc) / self.scale))

    def icdf(self, x):
        return self.loc - self.scale * log(-log(x))

    def log_prob(self, x):
        z = (x - self.loc) / self.scale
        return -self._log_scale - z - exp(-z)

    @cache.cached_property
    def mean(self):
        return self.loc + _EULER * self.scale

    @property
    def mode(self):
        return self.loc

    @cache.cached_property
    def variance(self):
        return (math.pi ** 2 / 6) * self.scale ** 2


@distribution.register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(dist1, dist2):
    r = dist1.scale / dist2.scale
    return (dist2._log_scale - dist1._log_scale + _EULER * (r - 1) - 1
            + (dist1.loc - dist2.loc) / dist2.scale
            + exp((dist2.loc - dist1.loc) / dist2.scale + lgamma(r + 1)))
