"""The Bernoulli distribution."""
import numpy

from cpuframe import backend, distribution
from cpuframe.distributions import utils
from cpuframe.function_node import FunctionNode
from cpuframe.functions.activation.sigmoid import sigmoid
from cpuframe.functions.activation.softplus import softplus
from cpuframe.functions.array.where import where
from cpuframe.functions.math.exponential import log
from cpuframe.utils import cache
from cpuframe.variable import as_variable


class BernoulliLogProb(FunctionNode):
    """``log p(x)`` from the logit: ``x logit - softplus(logit)``; at an
    infinite logit ``log x`` or ``log(1 - x)``; with ``binary_check``,
    ``-inf`` where ``x`` is neither 0 nor 1.  Differentiable with respect
    to the logit (nan where the logit is infinite or x invalid)."""

    def __init__(self, binary_check=False):
        self.binary_check = binary_check

    @property
    def label(self):
        return 'bernoulli_log_prob'

    def forward(self, inputs):
        logit, x = inputs
        self.retain_inputs((0, 1))
        xp = backend.get_array_module(logit)
        with numpy.errstate(divide='ignore', invalid='ignore',
                            over='ignore'):
            y = x * logit - xp.logaddexp(0, logit)
            pinf = xp.isposinf(logit)
            minf = xp.isneginf(logit)
            y = xp.where(pinf, xp.log(x), y)
            y = xp.where(minf, xp.log(1 - x), y)
        self._bad = pinf | minf
        if self.binary_check:
            invalid = (x != 0) & (x != 1)
            y = xp.where(invalid, -xp.inf, y)
            self._bad = self._bad | invalid
        return xp.asarray(y, dtype=logit.dtype),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.array.sum_to import sum_to
        gy, = grad_outputs
        logit, x = self.get_retained_inputs()
        xp = logit.xp
        g = x - sigmoid(logit)
        if self._bad.any():
            nan = xp.full(g.shape, xp.nan, g.dtype)
            g = where(xp.broadcast_to(self._bad, g.shape), nan, g)
        return sum_to(gy * g, logit.shape), None


def _bernoulli_log_prob(logit, x, binary_check=False):
    return BernoulliLogProb(binary_check).apply((logit, x))[0]


class Bernoulli(distribution.Distribution):
    """Bernoulli distribution: ``P(x = 1) = p``, ``P(x = 0) = 1 - p``.

    Args:
        p: the probability of 1.  Give either ``p`` or ``logit``
            (``log p - log(1 - p)``), not both.
        logit: the log-odds.
        binary_check (bool): when True, ``log_prob`` and ``prob`` of points
            other than 0 and 1 are ``-inf`` and 0.

    Samples are not differentiable.
    """

    def __init__(self, p=None, logit=None, binary_check=False):
        if not (p is None) ^ (logit is None):
            raise ValueError('Bernoulli: either `p` or `logit` (not both) '
                             'must have a value.')
        name = 'p' if p is not None else 'logit'
        value = utils.as_param('Bernoulli', name,
                               p if p is not None else logit)
        self._p = value if p is not None else None
        self._logit = value if p is None else None
        self.binary_check = binary_check

    @cache.cached_property
    def p(self):
        return self._p if self._p is not None else sigmoid(self._logit)

    @cache.cached_property
    def logit(self):
        if self._logit is not None:
            return self._logit
        return log(self._p) - log(1 - self._p)

    @property
    def batch_shape(self):
        return (self._p if self._p is not None else self._logit).shape

    @property
    def event_shape(self):
        return ()

    @cache.cached_property
    def entropy(self):
        if self._logit is not None:
            # softplus(l) - l sigmoid(l), finite for every logit
            return softplus(self._logit) - self._logit * self.p
        p = self.p
        return -utils._modified_xlogx(p) - utils._modified_xlogx(1 - p)

    def log_prob(self, x):
        return _bernoulli_log_prob(self.logit, x, self.binary_check)

    def prob(self, x):
        x = as_variable(x)
        prob = x * self.p + (1 - x) * (1 - self.p)
        if self.binary_check:
            xp = x.xp
            valid = (x.array == 0) | (x.array == 1)
            prob = prob * xp.broadcast_to(valid, prob.shape).astype(
                prob.dtype)
        return prob

    @property
    def mean(self):
        return self.p

    @property
    def params(self):
        return {'logit': self.logit}

    def sample_n(self, n):
        p = self.p.array
        xp = self.p.xp
        u = xp.random.uniform(0, 1, size=(n,) + p.shape)
        return as_variable((u < p).astype(p.dtype))

    @cache.cached_property
    def stddev(self):
        return self.variance ** 0.5

    @property
    def support(self):
        return '{0, 1}'

    @cache.cached_property
    def variance(self):
        return self.p * (1 - self.p)


@distribution.register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(dist1, dist2):
    # p1 (log p1 - log p2) + (1 - p1) (log(1 - p1) - log(1 - p2)) with
    # log p = -softplus(-l), log(1 - p) = -softplus(l)
    l1, l2 = dist1.logit, dist2.logit
    p1 = dist1.p
    return (p1 * (softplus(-l2) - softplus(-l1))
            + (1 - p1) * (softplus(l2) - softplus(l1)))
