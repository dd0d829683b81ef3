"""Reinterpreting batch axes of a distribution as event axes."""
import numpy

from cpuframe import distribution
from cpuframe.functions.math.prod import prod
from cpuframe.functions.math.sum import sum as _sum


class Independent(distribution.Distribution):
    """The joint distribution of independent members of ``distribution``'s
    batch: its last ``reinterpreted_batch_ndims`` batch axes become event
    axes (``log_prob`` sums over them, ``prob`` and ``cdf`` multiply).

    Args:
        distribution: the base distribution.
        reinterpreted_batch_ndims (int): how many trailing batch axes to
            reinterpret; by default all but the first.
    """

    def __init__(self, distribution, reinterpreted_batch_ndims=None):
        if not hasattr(distribution, 'batch_shape'):
            raise TypeError('Independent: expected a Distribution, got '
                            '{!r}'.format(type(distribution)))
        n_batch = len(distribution.batch_shape)
        if reinterpreted_batch_ndims is None:
            reinterpreted_batch_ndims = max(0, n_batch - 1)
        elif not 0 <= reinterpreted_batch_ndims <= n_batch:
            raise ValueError(
                'Independent: reinterpreted_batch_ndims must be between 0 '
                'and the number of batch axes of the distribution ({}), got '
                '{}'.format(n_batch, reinterpreted_batch_ndims))
        self._distribution = distribution
        self._ndims = reinterpreted_batch_ndims
        keep = n_batch - reinterpreted_batch_ndims
        self._batch_shape = distribution.batch_shape[:keep]
        self._event_shape = (distribution.batch_shape[keep:]
                             + distribution.event_shape)

    @property
    def distribution(self):
        return self._distribution

    @property
    def reinterpreted_batch_ndims(self):
        return self._ndims

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    def _reduce(self, op, stat):
        if self._ndims == 0:
            return stat
        return op(stat, axis=tuple(range(-self._ndims, 0)))

    @property
    def covariance(self):
        """Block-diagonal covariance over the flattened event axes, shape
        ``batch_shape + (n, n)``."""
        from cpuframe.functions.math.einsum import einsum
        base = self.distribution
        n = int(numpy.prod(base.batch_shape[len(self.batch_shape):],
                           dtype=numpy.int64))
        if base.event_shape == ():
            cov = base.variance.reshape(self.batch_shape + (n, 1, 1))
            d = 1
        else:
            d = int(numpy.prod(base.event_shape, dtype=numpy.int64))
            cov = base.covariance.reshape(self.batch_shape + (n, d, d))
        eye = cov.xp.eye(n, dtype=cov.dtype)
        full = einsum('...iab,ij->...iajb', cov, eye)
        return full.reshape(self.batch_shape + (n * d, n * d))

    @property
    def entropy(self):
        return self._reduce(_sum, self.distribution.entropy)

    def cdf(self, x):
        return self._reduce(prod, self.distribution.cdf(x))

    def icdf(self, x):
        raise RuntimeError('Independent.icdf: the cumulative distribution '
                           'function of a multivariate variable is not '
                           'invertible.')

    def log_cdf(self, x):
        return self._reduce(_sum, self.distribution.log_cdf(x))

    def log_prob(self, x):
        return self._reduce(_sum, self.distribution.log_prob(x))

    def log_survival_function(self, x):
        return self._reduce(_sum,
                            self.distribution.log_survival_function(x))

    @property
    def mean(self):
        return self.distribution.mean

    @property
    def mode(self):
        return self.distribution.mode

    @property
    def params(self):
        return self.distribution.params

    def perplexity(self, x):
        return self._reduce(prod, self.distribution.perplexity(x))

    def prob(self, x):
        return self._reduce(prod, self.distribution.prob(x))

    def sample_n(self, n):
        return self.distribution.sample_n(n)

    @property
    def stddev(self):
        return self.distribution.stddev

    @property
    def support(self):
        return self.distribution.support

    def survival_function(self, x):
        return self._reduce(prod, self.distribution.survival_function(x))

    @property
    def variance(self):
        return self.distribution.variance

    @property
    def xp(self):
        return self.distribution.xp


@distribution.register_kl(Independent, Independent)
def _kl_independent_independent(dist1, dist2):
    p, q = dist1.distribution, dist2.distribution
    if dist1.event_shape != dist2.event_shape:
        raise ValueError('kl_divergence(Independent): event shapes do not '
                         'match: {} and {}'.format(dist1.event_shape,
                                                   dist2.event_shape))
    if p.event_shape != q.event_shape:
        raise NotImplementedError(
            'kl_divergence(Independent): KL between Independents whose base '
            'distributions have different event shapes ({} and {}) is not '
            'supported.'.format(p.event_shape, q.event_shape))
    n_axes = len(dist1.event_shape) - len(p.event_shape)
    kl = distribution.kl_divergence(p, q)
    if n_axes == 0:
        return kl
    return _sum(kl, axis=tuple(range(-n_axes, 0)))
