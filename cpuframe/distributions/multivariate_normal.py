"""The multivariate normal distribution."""
import math

from cpuframe import distribution
from cpuframe.distributions import utils
from cpuframe.functions.array.broadcast import broadcast_to
from cpuframe.functions.array.diagonal import diagonal
from cpuframe.functions.array.expand_dims import expand_dims
from cpuframe.functions.array.squeeze import squeeze
from cpuframe.functions.math.basic_math import absolute, matmul
from cpuframe.functions.math.exponential import log
from cpuframe.functions.math.inv import batch_inv
from cpuframe.functions.math.sum import sum as _sum
from cpuframe.utils import argument, cache

_LOG_2PI_HALF = 0.5 * math.log(2 * math.pi)


def _tril_inv(scale_tril):
    """Inverse of a batch of triangular matrices, shape kept."""
    d = scale_tril.shape[-1]
    flat = scale_tril.reshape(-1, d, d)
    return batch_inv(flat).reshape(scale_tril.shape)


def _swap_last(x):
    from cpuframe.functions.array.swapaxes import swapaxes
    return swapaxes(x, -1, -2)


class MultivariateNormal(distribution.Distribution):
    """Multivariate normal distribution ``N(loc, L L^T)``.

    Args:
        loc: the mean, shape ``batch_shape + (d,)``.
        scale_tril: the keyword argument ``scale_tril``: a lower triangular
            ``L`` with a non-zero diagonal, shape ``batch_shape + (d, d)``.

    Sampling is reparameterised: ``loc + L eps``.
    """

    def __init__(self, loc, **kwargs):
        scale_tril, = argument.parse_kwargs(kwargs, ('scale_tril', None))
        if scale_tril is None:
            raise ValueError('MultivariateNormal: `scale_tril` must have a '
                             'value.')
        loc = utils.as_param('MultivariateNormal', 'loc', loc)
        scale_tril = utils.as_param('MultivariateNormal', 'scale_tril',
                                    scale_tril)
        if loc.ndim < 1 or scale_tril.ndim < 2 or \
                scale_tril.shape[-1] != scale_tril.shape[-2] or \
                scale_tril.shape[-1] != loc.shape[-1]:
            raise ValueError(
                'MultivariateNormal: loc must have shape batch + (d,) and '
                'scale_tril batch + (d, d), got {} and {}'.format(
                    loc.shape, scale_tril.shape))
        if loc.shape[:-1] != scale_tril.shape[:-2]:
            raise ValueError(
                'MultivariateNormal: the batch shapes of loc {} and '
                'scale_tril {} differ'.format(loc.shape, scale_tril.shape))
        if loc.dtype != scale_tril.dtype:
            raise TypeError('MultivariateNormal: loc and scale_tril must '
                            'share one dtype, got {} and {}'.format(
                                loc.dtype, scale_tril.dtype))
        self._loc = loc
        self._scale_tril = scale_tril

    @property
    def loc(self):
        return self._loc

    @property
    def scale_tril(self):
        return self._scale_tril

    @property
    def d(self):
        return self.scale_tril.shape[-1]

    @cache.cached_property
    def _logdet_scale(self):
        diag = diagonal(self.scale_tril, axis1=-2, axis2=-1)
        return _sum(log(absolute(diag)), axis=-1)

    @cache.cached_property
    def _scale_tril_inv(self):
        return _tril_inv(self.scale_tril)

    @property
    def batch_shape(self):
        return self.loc.shape[:-1]

    @property
    def event_shape(self):
        return self.loc.shape[-1:]

    @cache.cached_property
    def entropy(self):
        return self._logdet_scale + self.d * (_LOG_2PI_HALF + 0.5)

    def log_prob(self, x):
        diff = x - self.loc
        shape = diff.shape
        inv = broadcast_to(self._scale_tril_inv, shape + (self.d,))
        z = squeeze(matmul(inv, expand_dims(diff, -1)), -1)
        m = _sum(z ** 2, axis=-1)
        return -self.d * _LOG_2PI_HALF - self._logdet_scale - 0.5 * m

    @property
    def mean(self):
        return self.loc

    @property
    def params(self):
        return {'loc': self.loc, 'scale_tril': self.scale_tril}

    def sample_n(self, n):
        eps = utils.random_like(self.loc.xp, self.loc.dtype,
                                (n,) + self.loc.shape + (1,),
                                'standard_normal')
        lt = broadcast_to(self.scale_tril, (n,) + self.scale_tril.shape)
        return self.loc + squeeze(matmul(lt, eps), -1)

    @property
    def support(self):
        return 'real'

    @cache.cached_property
    def covariance(self):
        return matmul(self.scale_tril, _swap_last(self.scale_tril))


@distribution.register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(dist1, dist2):
    if dist1.d != dist2.d:
        raise ValueError('kl_divergence(MultivariateNormal): dimensions '
                         'differ: {} and {}'.format(dist1.d, dist2.d))
    inv2 = dist2._scale_tril_inv
    m = matmul(inv2, dist1.scale_tril)
    trace = _sum(m ** 2, axis=(-1, -2))
    z = squeeze(matmul(inv2, expand_dims(dist1.loc - dist2.loc, -1)), -1)
    mah = _sum(z ** 2, axis=-1)
    return (dist2._logdet_scale - dist1._logdet_scale + 0.5 * trace
            + 0.5 * mah - 0.5 * dist1.d)
