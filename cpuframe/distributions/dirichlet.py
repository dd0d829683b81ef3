"""The Dirichlet distribution."""
from cpuframe import distribution
from cpuframe.distributions import utils
from cpuframe.functions.array.broadcast import broadcast_to
from cpuframe.functions.math.digamma import digamma
from cpuframe.functions.math.exponential import log
from cpuframe.functions.math.lgamma import lgamma
from cpuframe.functions.math.sum import sum as _sum
from cpuframe.utils import cache
from cpuframe.variable import as_variable


def _lbeta(alpha, alpha0):
    return _sum(lgamma(alpha), axis=-1) - lgamma(alpha0)


class Dirichlet(distribution.Distribution):
    """Dirichlet distribution on the simplex over the last axis of
    ``alpha``: ``p(x) = prod x_i ** (alpha_i - 1) / B(alpha)``.

    Args:
        alpha: positive concentrations; the last axis is the event axis.

    Samples are not differentiable.
    """

    def __init__(self, alpha):
        self._alpha = utils.as_param('Dirichlet', 'alpha', alpha)
        if self._alpha.ndim < 1:
            raise ValueError('Dirichlet: alpha must have at least one axis, '
                             'got shape {}'.format(self._alpha.shape))

    @property
    def alpha(self):
        return self._alpha

    @cache.cached_property
    def alpha0(self):
        return _sum(self.alpha, axis=-1)

    @property
    def batch_shape(self):
        return self.alpha.shape[:-1]

    @property
    def event_shape(self):
        return self.alpha.shape[-1:]

    @cache.cached_property
    def entropy(self):
        alpha, alpha0 = self.alpha, self.alpha0
        k = alpha.shape[-1]
        return (_lbeta(alpha, alpha0) + (alpha0 - k) * digamma(alpha0)
                - _sum((alpha - 1) * digamma(alpha), axis=-1))

    def log_prob(self, x):
        return (_sum((self.alpha - 1) * log(x), axis=-1)
                - _lbeta(self.alpha, self.alpha0))

    @cache.cached_property
    def mean(self):
        return self.alpha / broadcast_to(self.alpha0[..., None],
                                         self.alpha.shape)

    @property
    def params(self):
        return {'alpha': self.alpha}

    def sample_n(self, n):
        xp = self.alpha.xp
        g = xp.random.gamma(self.alpha.array,
                            size=(n,) + self.alpha.shape)
        g = g / g.sum(axis=-1, keepdims=True)
        return as_variable(g.astype(self.alpha.dtype))

    @property
    def support(self):
        return '[0, 1]'

    @cache.cached_property
    def variance(self):
        a0 = broadcast_to(self.alpha0[..., None], self.alpha.shape)
        return self.alpha * (a0 - self.alpha) / (a0 ** 2 * (a0 + 1))


@distribution.register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(dist1, dist2):
    a, b = dist1.alpha, dist2.alpha
    a0 = broadcast_to(dist1.alpha0[..., None], a.shape)
    return (-_lbeta(a, dist1.alpha0) + _lbeta(b, dist2.alpha0)
            + _sum((a - b) * (digamma(a) - digamma(a0)), axis=-1))
