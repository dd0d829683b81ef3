"""The Cauchy distribution."""
import math
import warnings

from cpuframe.distributions import _loc_scale
from cpuframe.functions.math.exponential import log, log1p
from cpuframe.functions.math.inverse_trigonometric import arctan
from cpuframe.functions.math.trigonometric import tan
from cpuframe.utils import cache
from cpuframe.variable import as_variable


class Cauchy(_loc_scale.LocScale):
    """Cauchy distribution
    ``p(x) = 1 / (pi scale (1 + ((x - loc) / scale) ** 2))``.

    Args:
        loc: the location (median).
        scale: the positive scale.

    ``mean`` and ``variance`` are undefined: nan, with a RuntimeWarning.
    Sampling is reparameterised (inverse CDF).
    """

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
    def variance(self):
        return self._undefined('Variance')
