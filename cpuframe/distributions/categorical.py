"""The categorical distribution over ``{0, ..., K - 1}``."""
import numpy

from cpuframe import distribution
from cpuframe.distributions import utils
from cpuframe.functions.activation.log_softmax import log_softmax
from cpuframe.functions.array.broadcast import broadcast_to
from cpuframe.functions.array.select_item import select_item
from cpuframe.functions.array.where import where
from cpuframe.functions.math.exponential import exp, log
from cpuframe.functions.math.sum import sum as _sum
from cpuframe.utils import argument, cache
from cpuframe.variable import Variable, as_variable


def _probs_params(owner, p, logit):
    if not (p is None) ^ (logit is None):
        raise ValueError('{}: either `p` or `logit` (not both) must have a '
                         'value.'.format(owner))
    name = 'p' if p is not None else 'logit'
    v = utils.as_param(owner, name, p if p is not None else logit)
    if v.ndim < 1:
        raise ValueError('{}: {} must have at least one axis (the '
                         'categories), got shape {}'.format(owner, name,
                                                           v.shape))
    return (v, None) if p is not None else (None, v)


def _sample_indices(p, n):
    """n category indices per distribution (shape (n,) + p.shape[:-1]),
    by inverting the cumulative probabilities."""
    xp = p.xp
    cum = xp.cumsum(p.array.astype(numpy.float64), axis=-1)
    u = xp.random.uniform(0, 1, size=(n,) + p.shape[:-1] + (1,))
    u = u * cum[..., -1:]       # tolerate probabilities off 1 by rounding
    idx = (cum[None] <= u).sum(axis=-1)
    return xp.minimum(idx, p.shape[-1] - 1)


def _kl_from_probs(p1, log_p1, log_p2):
    # sum p1 (log p1 - log p2), terms with p1 = 0 counted as 0
    xp = p1.xp
    diff = log_p1 - log_p2
    zero = p1.array == 0
    if zero.any():
        diff = where(zero, xp.zeros(diff.shape, diff.dtype), diff)
    return _sum(p1 * diff, axis=-1)


class Categorical(distribution.Distribution):
    """Categorical distribution: ``P(x = i) = p[..., i]``.

    Args:
        p: probabilities over the last axis.  Give either ``p`` or the
            keyword ``logit`` (unnormalised log-probabilities), not both.

    ``batch_shape`` is ``p.shape[:-1]``; points are integer indices.
    Samples are not differentiable.
    """

    def __init__(self, p=None, **kwargs):
        logit = None
        if kwargs:
            logit, = argument.parse_kwargs(kwargs, ('logit', logit))
        self._p, self._logit = _probs_params(type(self).__name__, p, logit)

    @cache.cached_property
    def p(self):
        return self._p if self._p is not None else exp(self.log_p)

    @cache.cached_property
    def log_p(self):
        if self._p is not None:
            return log(self._p)
        return log_softmax(self._logit, axis=-1)

    @property
    def _k(self):
        return (self._p if self._p is not None else self._logit).shape[-1]

    @property
    def batch_shape(self):
        return (self._p if self._p is not None else self._logit).shape[:-1]

    @property
    def event_shape(self):
        return ()

    @cache.cached_property
    def entropy(self):
        if self._p is not None:
            return -_sum(utils._modified_xlogx(self.p), axis=-1)
        return -_sum(self.p * self.log_p, axis=-1)

    def log_prob(self, x):
        x = x.array if isinstance(x, Variable) else x
        xp = self.log_p.xp
        x = xp.asarray(x)
        if x.dtype.kind not in 'iuf':
            raise TypeError('Categorical.log_prob: x must hold category '
                            'indices, got dtype {}'.format(x.dtype))
        idx = x.astype(numpy.int32)
        if (idx < 0).any() or (idx >= self._k).any():
            raise ValueError('Categorical.log_prob: indices must be in '
                             '[0, {}), got values from {} to {}'.format(
                                 self._k, int(idx.min()), int(idx.max())))
        try:
            shape = numpy.broadcast_shapes(idx.shape, self.batch_shape)
        except ValueError:
            raise ValueError(
                'Categorical.log_prob: x of shape {} does not broadcast '
                'with batch_shape {}'.format(x.shape, self.batch_shape)) \
                from None
        log_p = broadcast_to(self.log_p, shape + (self._k,))
        flat = select_item(log_p.reshape(-1, self._k),
                           xp.broadcast_to(idx, shape).reshape(-1))
        return flat.reshape(shape)

    @property
    def params(self):
        return {'p': self.p}

    def sample_n(self, n):
        return as_variable(_sample_indices(self.p, n).astype(numpy.int32))


@distribution.register_kl(Categorical, Categorical)
def _kl_categorical_categorical(dist1, dist2):
    return _kl_from_probs(dist1.p, dist1.log_p, dist2.log_p)
