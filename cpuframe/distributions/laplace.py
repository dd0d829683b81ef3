"""The Laplace distribution."""
import math

from cpuframe import distribution
from cpuframe.distributions import utils
from cpuframe.functions.math.basic_math import absolute
from cpuframe.functions.math.exponential import exp, expm1, log, log1p
from cpuframe.functions.math.sign import sign
from cpuframe.utils import cache


class Laplace(distribution.Distribution):
    """Laplace distribution ``p(x) = exp(-|x - loc| / scale) / (2 scale)``.

    Args:
        loc: the location (mean, median and mode).
        scale: the positive scale.

    Sampling is reparameterised (inverse CDF).
    """

    def __init__(self, loc, scale):
        self._loc, self._scale = utils.broadcast_params(
            'Laplace', ('loc', 'scale'),
            (utils.as_param('Laplace', 'loc', loc),
             utils.as_param('Laplace', 'scale', scale)))

    @property
    def loc(self):
        return self._loc

    @property
    def scale(self):
        return self._scale

    @property
    def batch_shape(self):
        return self.loc.shape

    @property
    def event_shape(self):
        return ()

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

    @property
    def params(self):
        return {'loc': self.loc, 'scale': self.scale}

    def sample_n(self, n):
        u = utils.uniform_open(self.loc.xp, self.loc.dtype,
                               (n,) + self.loc.shape)
        return self.icdf(u)

    @cache.cached_property
    def stddev(self):
        return math.sqrt(2) * self.scale

    @property
    def support(self):
        return 'real'

    @cache.cached_property
    def variance(self):
        return 2 * self.scale ** 2


@distribution.register_kl(Laplace, Laplace)
def _kl_laplace_laplace(dist1, dist2):
    d = absolute(dist1.loc - dist2.loc)
    return (log(dist2.scale) - log(dist1.scale) + d / dist2.scale
            + dist1.scale / dist2.scale * exp(-d / dist1.scale) - 1)
