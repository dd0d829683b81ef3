"""The categorical distribution on one-hot vectors."""
from cpuframe import distribution
from cpuframe.distributions import utils
from cpuframe.distributions.categorical import (
    _kl_from_probs,
    _sample_indices,
)
from cpuframe.functions.math.exponential import log
from cpuframe.functions.math.sum import sum as _sum
from cpuframe.utils import cache
from cpuframe.variable import as_variable


class OneHotCategorical(distribution.Distribution):
    """Categorical distribution whose points are one-hot vectors over the
    last axis of ``p``.

    Args:
        p: probabilities over the last axis.

    ``batch_shape`` is ``p.shape[:-1]``, ``event_shape`` ``p.shape[-1:]``.
    Samples are not differentiable.
    """

    def __init__(self, p):
        self._p = utils.as_param('OneHotCategorical', 'p', p)
        if self._p.ndim < 1:
            raise ValueError('OneHotCategorical: p must have at least one '
                             'axis, got shape {}'.format(self._p.shape))

    @property
    def p(self):
        return self._p

    @cache.cached_property
    def log_p(self):
        return log(self.p)

    @property
    def batch_shape(self):
        return self.p.shape[:-1]

    @property
    def event_shape(self):
        return self.p.shape[-1:]

    @cache.cached_property
    def entropy(self):
        return -_sum(utils._modified_xlogx(self.p), axis=-1)

    def log_prob(self, x):
        x = as_variable(x)
        # sum_i x_i log p_i, with 0 log 0 taken as 0
        xp = x.xp
        log_p = self.log_p
        zero = self.p.array == 0
        if zero.any():
            from cpuframe.functions.array.where import where
            log_p = where(zero, xp.zeros(log_p.shape, log_p.dtype), log_p)
        return _sum(x * log_p, axis=-1)

    @property
    def mean(self):
        return self.p

    @property
    def params(self):
        return {'p': self.p}

    def sample_n(self, n):
        xp = self.p.xp
        idx = _sample_indices(self.p, n)
        k = self.p.shape[-1]
        return as_variable((idx[..., None] == xp.arange(k)).astype(
            self.p.dtype))

    @property
    def support(self):
        return 'one-hot vectors'

    @cache.cached_property
    def variance(self):
        return self.p * (1 - self.p)


@distribution.register_kl(OneHotCategorical, OneHotCategorical)
def _kl_one_hot_categorical_one_hot_categorical(dist1, dist2):
    return _kl_from_probs(dist1.p, dist1.log_p, dist2.log_p)
