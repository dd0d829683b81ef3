"""The Cauchy distribution."""
import math
import warnings

from cpuframe import distribution
from cpuframe.distributions import utils
from cpuframe.functions.math.exponential import log, log1p
from cpuframe.functions.math.inverse_trigonometric import arctan
from cpuframe.functions.math.trigonometric import tan
from cpuframe.utils import cache
from cpuframe.variable import as_variable


class Cauchy(distribution.Distribution):
    """Cauchy distribution
    ``p(x) = 1 / (pi scale (1 + ((x - loc) / scale) ** 2))``.

    Args:
        loc: the location (median).
        scale: the positive scale.

    ``mean`` and ``variance`` are undefined: nan, with a RuntimeWarning.
    Sampling is reparameterised (inverse CDF).
    """

    def __init__(self, loc, scale):
        self._loc, self._scale = utils.broadcast_params(
            'Cauchy', ('loc', 'scale'),
            (utils.as_param('Cauchy', 'loc', loc),
             utils.as_param('Cauchy', 'scale', scale)))

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
        return 0.5 + arctan((x - self.loc) / self.scale) / math.pi

    @cache.cached_property
    def entropy(self):
        return log(4 * math.pi * self.scale)

    def icdf(self, x):
        return self.loc + self.scale * tan(math.pi * (x - 0.5))

    def log_prob(self, x):
        z = (x - self.loc) / self.scale
        return -math.log(math.pi) - log(self.scale) - log1p(z ** 2)

    def _undefined(self, what):
        warnings.warn('{} of the cauchy distribution is undefined.'.format(
            what), RuntimeWarning, stacklevel=3)
        xp = self.loc.xp
        return as_variable(xp.full(self.loc.shape, xp.nan, self.loc.dtype))

    @property
    def mean(self):
        return self._undefined('Mean')

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

    @property
    def variance(self):
        return self._undefined('Variance')
