"""The chi-square distribution."""
import math

from cpuframe import distribution
from cpuframe.distributions import utils
from cpuframe.functions.math.digamma import digamma
from cpuframe.functions.math.exponential import log
from cpuframe.functions.math.lgamma import lgamma
from cpuframe.utils import cache
from cpuframe.variable import as_variable


class Chisquare(distribution.Distribution):
    """Chi-square distribution with ``k`` degrees of freedom:
    ``p(x) = x ** (k/2 - 1) exp(-x/2) / (2 ** (k/2) Gamma(k/2))``.

    Args:
        k: the positive degrees of freedom (need not be integral).

    Samples are not differentiable.
    """

    def __init__(self, k):
        self._k = utils.as_param('Chisquare', 'k', k)

    @property
    def k(self):
        return self._k

    @cache.cached_property
    def _half_k(self):
        return 0.5 * self.k

    @property
    def batch_shape(self):
        return self.k.shape

    @property
    def event_shape(self):
        return ()

    @cache.cached_property
    def entropy(self):
        h = self._half_k
        return h + math.log(2) + lgamma(h) + (1 - h) * digamma(h)

    def log_prob(self, x):
        h = self._half_k
        return ((h - 1) * log(x) - 0.5 * x - h * math.log(2.0)
                - lgamma(h))

    @property
    def mean(self):
        return self.k

    @property
    def params(self):
        return {'k': self.k}

    def sample_n(self, n):
        return as_variable(utils.random_like(
            self.k.xp, self.k.dtype, (n,) + self.k.shape, 'chisquare',
            self.k.array))

    @property
    def support(self):
        return 'positive'

    @cache.cached_property
    def variance(self):
        return 2 * self.k
