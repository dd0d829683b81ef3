"""The geometric distribution on {1, 2, ...}."""
from cpuframe import distribution
from cpuframe.distributions import utils
from cpuframe.functions.math.exponential import log, log1p
from cpuframe.utils import cache
from cpuframe.variable import as_variable


class Geometric(distribution.Distribution):
    """Geometric distribution: the number of Bernoulli(p) trials up to and
    including the first success, ``P(x) = (1 - p) ** (x - 1) p``.

    Args:
        p: the success probability in (0, 1].

    Samples are not differentiable.
    """

    def __init__(self, p):
        self._p = utils.as_param('Geometric', 'p', p)

    @property
    def p(self):
        return self._p

    @property
    def batch_shape(self):
        return self.p.shape

    @property
    def event_shape(self):
        return ()

    @cache.cached_property
    def entropy(self):
        p = self.p
        return -((1 - p) * log1p(-p) + p * log(p)) / p

    def log_prob(self, x):
        return (x - 1) * log1p(-self.p) + log(self.p)

    @cache.cached_property
    def mean(self):
        return 1 / self.p

    @property
    def params(self):
        return {'p': self.p}

    def sample_n(self, n):
        return as_variable(utils.random_like(
            self.p.xp, self.p.dtype, (n,) + self.p.shape, 'geometric',
            self.p.array))

    @property
    def support(self):
        return 'positive integer'

    @cache.cached_property
    def variance(self):
        return (1 - self.p) / self.p ** 2


@distribution.register_kl(Geometric, Geometric)
def _kl_geometric_geometric(dist1, dist2):
    p1, p2 = dist1.p, dist2.p
    return ((1 - p1) / p1 * (log1p(-p1) - log1p(-p2))
            + log(p1) - log(p2))
