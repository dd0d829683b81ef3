"""The gamma distribution (shape k, scale theta)."""
from cpuframe import distribution
from cpuframe.distributions import utils
from cpuframe.functions.math.digamma import digamma
from cpuframe.functions.math.exponential import log
from cpuframe.functions.math.lgamma import lgamma
from cpuframe.utils import cache
from cpuframe.variable import as_variable


class Gamma(distribution.Distribution):
    """Gamma distribution:
    ``p(x) = x ** (k - 1) exp(-x / theta) / (Gamma(k) theta ** k)``.

    Args:
        k: the positive shape.
        theta: the positive scale.

    Samples are not differentiable.
    """

    def __init__(self, k, theta):
        self._k, self._theta = utils.broadcast_params(
            'Gamma', ('k', 'theta'), (utils.as_param('Gamma', 'k', k),
                                      utils.as_param('Gamma', 'theta',
                                                     theta)))

    @property
    def k(self):
        return self._k

    @property
    def theta(self):
        return self._theta

    @property
    def batch_shape(self):
        return self.k.shape

    @property
    def event_shape(self):
        return ()

    @cache.cached_property
    def entropy(self):
        k = self.k
        return k + log(self.theta) + lgamma(k) + (1 - k) * digamma(k)

    def log_prob(self, x):
        k, theta = self.k, self.theta
        return (-lgamma(k) - k * log(theta) + (k - 1) * log(x)
                - x / theta)

    @cache.cached_property
    def mean(self):
        return self.k * self.theta

    @property
    def params(self):
        return {'k': self.k, 'theta': self.theta}

    def sample_n(self, n):
        return as_variable(utils.random_like(
            self.k.xp, self.k.dtype, (n,) + self.k.shape, 'gamma',
            self.k.array, self.theta.array))

    @property
    def support(self):
        return 'positive'

    @cache.cached_property
    def variance(self):
        return self.k * self.theta ** 2


@distribution.register_kl(Gamma, Gamma)
def _kl_gamma_gamma(dist1, dist2):
    k1, t1, k2, t2 = dist1.k, dist1.theta, dist2.k, dist2.theta
    return ((k1 - k2) * digamma(k1) - lgamma(k1) + lgamma(k2)
            + k2 * (log(t2) - log(t1)) + k1 * (t1 - t2) / t2)
