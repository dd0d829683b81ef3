"""The log-normal distribution."""
import math

from cpuframe import distribution
from cpuframe.distributions import utils
from cpuframe.functions.math.exponential import exp, expm1, log
from cpuframe.utils import cache

_LOG_PROB_C = -0.5 * math.log(2 * math.pi)


class LogNormal(distribution.Distribution):
    """Log-normal distribution: ``log x ~ N(mu, sigma ** 2)``.

    Args:
        mu: mean of ``log x``.
        sigma: standard deviation of ``log x``.

    Sampling is reparameterised: ``exp(mu + sigma * eps)``.
    """

    def __init__(self, mu, sigma):
        self._mu, self._sigma = utils.broadcast_params(
            'LogNormal', ('mu', 'sigma'),
            (utils.as_param('LogNormal', 'mu', mu),
             utils.as_param('LogNormal', 'sigma', sigma)))

    @property
    def mu(self):
        return self._mu

    @property
    def sigma(self):
        return self._sigma

    @cache.cached_property
    def _log_sigma(self):
        return log(self.sigma)

    @property
    def batch_shape(self):
        return self.mu.shape

    @property
    def event_shape(self):
        return ()

    @cache.cached_property
    def entropy(self):
        return 0.5 - _LOG_PROB_C + self._log_sigma + self.mu

    def log_prob(self, x):
        logx = log(x)
        return (_LOG_PROB_C - self._log_sigma - logx
                - 0.5 * (logx - self.mu) ** 2 / self.sigma ** 2)

    @cache.cached_property
    def mean(self):
        return exp(self.mu + 0.5 * self.sigma ** 2)

    @property
    def params(self):
        return {'mu': self.mu, 'sigma': self.sigma}

    def sample_n(self, n):
        eps = utils.random_like(self.mu.xp, self.mu.dtype,
                                (n,) + self.mu.shape, 'standard_normal')
        return exp(self.mu + self.sigma * eps)

    @property
    def support(self):
        return 'positive'

    @cache.cached_property
    def variance(self):
        s2 = self.sigma ** 2
        return expm1(s2) * exp(2 * self.mu + s2)


@distribution.register_kl(LogNormal, LogNormal)
def _kl_log_normal_log_normal(dist1, dist2):
    return (dist2._log_sigma - dist1._log_sigma
            + 0.5 * (dist1.sigma ** 2 + (dist1.mu - dist2.mu) ** 2)
            / dist2.sigma ** 2 - 0.5)
