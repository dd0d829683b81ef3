"""The Pareto distribution."""
import numpy

from cpuframe import distribution
from cpuframe.distributions import utils
from cpuframe.functions.math.exponential import exp, log, log1p
from cpuframe.utils import cache


class Pareto(distribution.Distribution):
    """Pareto distribution
    ``p(x) = alpha scale ** alpha / x ** (alpha + 1)`` on ``x >= scale``.

    Args:
        scale: the positive minimum of the support.
        alpha: the positive shape.

    ``mean`` is inf for ``alpha <= 1`` and ``variance`` inf for
    ``alpha <= 2``.  Sampling is reparameterised (inverse CDF).
    """

    def __init__(self, scale, alpha):
        self._scale, self._alpha = utils.broadcast_params(
            'Pareto', ('scale', 'alpha'),
            (utils.as_param('Pareto', 'scale', scale),
             utils.as_param('Pareto', 'alpha', alpha)))

    @property
    def scale(self):
        return self._scale

    @property
    def alpha(self):
        return self._alpha

    @cache.cached_property
    def _log_scale(self):
        return log(self.scale)

    @cache.cached_property
    def _log_alpha(self):
        return log(self.alpha)

    @property
    def batch_shape(self):
        return self.scale.shape

    @property
    def event_shape(self):
        return ()

    @cache.cached_property
    def entropy(self):
        return self._log_scale - self._log_alpha + 1 / self.alpha + 1

    def log_prob(self, x):
        lp = (self._log_alpha + self.alpha * self._log_scale
              - (self.alpha + 1) * log(x))
        inside = utils.points(x) >= self.scale.array
        return utils.keep_where(inside, lp, -numpy.inf)

    @cache.cached_property
    def mean(self):
        a = self.alpha
        m = a * self.scale / (a - 1)
        return utils.keep_where(a.array > 1, m, numpy.inf)

    @property
    def params(self):
        return {'scale': self.scale, 'alpha': self.alpha}

    def sample_n(self, n):
        u = utils.uniform_open(self.scale.xp, self.scale.dtype,
                               (n,) + self.scale.shape)
        # inverse of the survival function (scale / x) ** alpha = u
        return self.scale * exp(-log(u) / self.alpha)

    def cdf(self, x):
        c = 1 - exp(
            self.alpha * (self._log_scale - log(x)))
        return utils.keep_where(utils.points(x) >= self.scale.array, c, 0)

    def icdf(self, x):
        return self.scale * exp(-log1p(-x) / self.alpha)

    @property
    def support(self):
        return '[scale, inf]'

    @cache.cached_property
    def variance(self):
        a = self.alpha
        v = self.scale ** 2 * a / ((a - 1) ** 2 * (a - 2))
        return utils.keep_where(a.array > 2, v, numpy.inf)


@distribution.register_kl(Pareto, Pareto)
def _kl_pareto_pareto(dist1, dist2):
    a1, a2 = dist1.alpha, dist2.alpha
    kl = (dist1._log_alpha - dist2._log_alpha
          + a2 * (dist1._log_scale - dist2._log_scale) + a2 / a1 - 1)
    return utils.keep_where(dist1.scale.array >= dist2.scale.array, kl,
                            numpy.inf)
