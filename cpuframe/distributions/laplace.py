"""The Laplace distribution."""
import math

from cpuframe import distribution
from cpuframe.distributions import _loc_scale
from cpuframe.functions.math.basic_math import absolute
from cpuframe.functions.math.exponential import exp, expm1, log, log1p
from cpuframe.functions.math.sign import sign
from cpuframe.utils import cache


class Laplace(_loc_scale.LocScale):
    """Laplace distribution ``p(x) = exp(-|x - loc| / scale) / (2 scale)``.

    Args:
        loc: the location (mean, median and mode).
        scale: the positive scale.

    Sampling is reparameterised (inverse CDF).
    """

    def cdf(self, x):
        z = (x - self.loc) / self.scale
        return 0.5 - 0.5 * sign(z) * expm1(-absolute(z))

    def survival_function(self, x):
        return 1 - self.cdf(x)

    @cache.cached_property
    def entropy(self):
        return log(2 * self.scale) + 1

    def icdf(self, x):
        c = x - 0.5
        return self.loc - self.scale * sign(c) * log1p(-2 * absolute(c))

    def log_prob(self, x):
        return -log(2 * self.scale) - absolute(x - self.loc) / self.scale

    def prob(self, x):
        return exp(self.log_prob(x))

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @cache.cached_property
    def stddev(self):
        return math.sqrt(2) * self.scale

    @cache.cached_property
    def variance(self):
        return 2 * self.scale ** 2


@distribution.register_kl(Laplace, Laplace)
def _kl_laplace_laplace(dist1, dist2):
    d = absolute(dist1.loc - dist2.loc)
    return (log(dist2.scale) - log(dist1.scale) + d / dist2.scale
            + dist1.scale / dist2.scale * exp(-d / dist1.scale) - 1)
