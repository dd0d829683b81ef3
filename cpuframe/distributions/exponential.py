"""The exponential distribution."""
import numpy

from cpuframe import distribution
from cpuframe.distributions import utils
from cpuframe.functions.math.exponential import exp, expm1, log, log1p
from cpuframe.utils import cache


class Exponential(distribution.Distribution):
    """Exponential distribution ``p(x) = lam exp(-lam x)`` on x >= 0.

    Args:
        lam: the positive rate.

    Sampling is reparameterised (inverse CDF).
    """

    def __init__(self, lam):
        self._lam = utils.as_param('Exponential', 'lam', lam)

    @property
    def lam(self):
        return self._lam

    @cache.cached_property
    def _log_lam(self):
        return log(self.lam)

    @property
    def batch_shape(self):
        return self.lam.shape

    @property
    def event_shape(self):
        return ()

    def cdf(self, x):
        c = -expm1(-self.lam * x)
        return utils.keep_where(utils.points(x) >= 0, c, 0)

    def survival_function(self, x):
        s = exp(-self.lam * x)
        return utils.keep_where(utils.points(x) >= 0, s, 1)

    @cache.cached_property
    def entropy(self):
        return 1 - self._log_lam

    def icdf(self, x):
        return -log1p(-x) / self.lam

    def log_prob(self, x):
        lp = self._log_lam - self.lam * x
        return utils.keep_where(utils.points(x) >= 0, lp, -numpy.inf)

    @cache.cached_property
    def mean(self):
        return 1 / self.lam

    @property
    def params(self):
        return {'lam': self.lam}

    def sample_n(self, n):
        u = utils.uniform_open(self.lam.xp, self.lam.dtype,
                               (n,) + self.lam.shape)
        return self.icdf(u)

    @property
    def support(self):
        return 'positive'

    @cache.cached_property
    def variance(self):
        return 1 / self.lam ** 2


@distribution.register_kl(Exponential, Exponential)
def _kl_exponential_exponential(dist1, dist2):
    return (dist1._log_lam - dist2._log_lam + dist2.lam / dist1.lam - 1)
