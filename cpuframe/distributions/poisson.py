"""The Poisson distribution."""
from cpuframe import distribution
from cpuframe.distributions import utils
from cpuframe.functions.math.exponential import log
from cpuframe.functions.math.lgamma import lgamma
from cpuframe.utils import cache
from cpuframe.variable import as_variable


class Poisson(distribution.Distribution):
    """Poisson distribution ``P(x) = lam ** x exp(-lam) / x!``.

    Args:
        lam: the positive rate (mean).

    Samples are not differentiable.
    """

    def __init__(self, lam):
        self._lam = utils.as_param('Poisson', 'lam', lam)

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

    def log_prob(self, x):
        xa = utils.points(x)
        xp = self.lam.xp
        lg = lgamma(xp.asarray(xa + 1, dtype=self.lam.dtype))
        return x * self._log_lam - self.lam - lg

    @property
    def mean(self):
        return self.lam

    @property
    def params(self):
        return {'lam': self.lam}

    def sample_n(self, n):
        return as_variable(utils.random_like(
            self.lam.xp, self.lam.dtype, (n,) + self.lam.shape, 'poisson',
            self.lam.array))

    @property
    def support(self):
        return 'non negative integer'

    @property
    def variance(self):
        return self.lam


@distribution.register_kl(Poisson, Poisson)
def _kl_poisson_poisson(dist1, dist2):
    return (dist1.lam * (dist1._log_lam - dist2._log_lam)
            - dist1.lam + dist2.lam)
