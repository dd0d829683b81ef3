"""The Gumbel (type-I extreme value) distribution."""
import math

from cpuframe import distribution
from cpuframe.distributions import utils
from cpuframe.functions.math.exponential import exp, log
from cpuframe.functions.math.lgamma import lgamma
from cpuframe.utils import cache

_EULER = 0.57721566490153286


class Gumbel(distribution.Distribution):
    """Gumbel distribution
    ``p(x) = exp(-z - exp(-z)) / scale`` with ``z = (x - loc) / scale``.

    Args:
        loc: the location (mode).
        scale: the positive scale.

    Sampling is reparameterised: ``loc - scale log(-log u)``.
    """

    def __init__(self, loc, scale):
        self._loc, self._scale = utils.broadcast_params(
            'Gumbel', ('loc', 'scale'),
            (utils.as_param('Gumbel', 'loc', loc),
             utils.as_param('Gumbel', 'scale', scale)))

    @property
    def loc(self):
        return self._loc

    @property
    def scale(self):
        return self._scale

    @cache.cached_property
    def _log_scale(self):
        return log(self.scale)

    @property
    def batch_shape(self):
        return self.loc.shape

    @property
    def event_shape(self):
        return ()

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

    @property
    def params(self):
        return {'loc': self.loc, 'scale': self.scale}

    def sample_n(self, n):
        u = utils.uniform_open(self.loc.xp, self.loc.dtype,
                               (n,) + self.loc.shape)
        return self.icdf(u)

    @property
    def support(self):
        return 'real'

    @cache.cached_property
    def variance(self):
        return (math.pi ** 2 / 6) * self.scale ** 2


@distribution.register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(dist1, dist2):
    r = dist1.scale / dist2.scale
    return (dist2._log_scale - dist1._log_scale + _EULER * (r - 1) - 1
            + (dist1.loc - dist2.loc) / dist2.scale
            + exp((dist2.loc - dist1.loc) / dist2.scale + lgamma(r + 1)))
