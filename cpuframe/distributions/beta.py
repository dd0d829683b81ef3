"""The beta distribution."""
from cpuframe import distribution
from cpuframe.distributions import utils
from cpuframe.functions.math.digamma import digamma
from cpuframe.functions.math.exponential import log
from cpuframe.functions.math.lgamma import lgamma
from cpuframe.utils import cache
from cpuframe.variable import as_variable


def _lbeta(a, b):
    return lgamma(a) + lgamma(b) - lgamma(a + b)


class Beta(distribution.Distribution):
    """Beta distribution on [0, 1]:
    ``p(x) = x ** (a - 1) (1 - x) ** (b - 1) / B(a, b)``.

    Args:
        a, b: the positive shape parameters.

    Samples are not differentiable.
    """

    def __init__(self, a, b):
        self._a, self._b = utils.broadcast_params(
            'Beta', ('a', 'b'), (utils.as_param('Beta', 'a', a),
                                 utils.as_param('Beta', 'b', b)))

    @property
    def a(self):
        return self._a

    @property
    def b(self):
        return self._b

    @cache.cached_property
    def _a_plus_b(self):
        return self.a + self.b

    @property
    def batch_shape(self):
        return self.a.shape

    @property
    def event_shape(self):
        return ()

    @cache.cached_property
    def entropy(self):
        a, b, ab = self.a, self.b, self._a_plus_b
        return (_lbeta(a, b) - (a - 1) * digamma(a) - (b - 1) * digamma(b)
                + (ab - 2) * digamma(ab))

    def log_prob(self, x):
        return ((self.a - 1) * log(x) + (self.b - 1) * log(1 - x)
                - _lbeta(self.a, self.b))

    @cache.cached_property
    def mean(self):
        return self.a / self._a_plus_b

    @property
    def params(self):
        return {'a': self.a, 'b': self.b}

    def sample_n(self, n):
        xp = self.a.xp
        return as_variable(utils.random_like(
            xp, self.a.dtype, (n,) + self.a.shape, 'beta', self.a.array,
            self.b.array))

    @property
    def support(self):
        return '[0, 1]'

    @cache.cached_property
    def variance(self):
        ab = self._a_plus_b
        return self.a * self.b / (ab ** 2 * (ab + 1))


@distribution.register_kl(Beta, Beta)
def _kl_beta_beta(dist1, dist2):
    a1, b1, a2, b2 = dist1.a, dist1.b, dist2.a, dist2.b
    return (_lbeta(a2, b2) - _lbeta(a1, b1)
            + (a1 - a2) * digamma(a1) + (b1 - b2) * digamma(b1)
            + (a2 - a1 + b2 - b1) * digamma(dist1._a_plus_b))
