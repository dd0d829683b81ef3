"""The continuous uniform distribution."""
import math

import numpy

from cpuframe import distribution
from cpuframe.distributions import utils
from cpuframe.functions.array.broadcast import broadcast_to
from cpuframe.functions.math.clip import clip
from cpuframe.functions.math.exponential import log
from cpuframe.utils import argument, cache


class Uniform(distribution.Distribution):
    """Uniform distribution on ``[low, high]``.

    Give either the keywords ``low`` and ``high`` or ``loc`` and ``scale``
    (``low = loc``, ``high = loc + scale``), not both pairs.

    Sampling is reparameterised: ``low + u (high - low)``.
    """

    def __init__(self, **kwargs):
        low, high, loc, scale = argument.parse_kwargs(
            kwargs, ('low', None), ('high', None), ('loc', None),
            ('scale', None))
        self._use_low_high = low is not None and high is not None
        use_loc_scale = loc is not None and scale is not None
        if not (self._use_low_high ^ use_loc_scale) or (
                self._use_low_high and (loc is not None or scale is not None)
        ) or (use_loc_scale and (low is not None or high is not None)):
            raise ValueError('Uniform: either `low, high` or `loc, scale` '
                             '(not both) must have a value.')
        names = ('low', 'high') if self._use_low_high else ('loc', 'scale')
        values = (low, high) if self._use_low_high else (loc, scale)
        self._first, self._second = utils.broadcast_params(
            'Uniform', names,
            [utils.as_param('Uniform', n, v) for n, v in zip(names, values)])

    @property
    def low(self):
        return self._first

    @cache.cached_property
    def high(self):
        return self._second if self._use_low_high \
            else self._first + self._second

    @property
    def loc(self):
        return self._first

    @cache.cached_property
    def scale(self):
        return self._second if not self._use_low_high \
            else self._second - self._first

    @property
    def batch_shape(self):
        return self._first.shape

    @property
    def event_shape(self):
        return ()

    def cdf(self, x):
        return clip((x - self.low) / self.scale, 0.0, 1.0)

    @cache.cached_property
    def entropy(self):
        return log(self.scale)

    def icdf(self, x):
        return self.low + x * self.scale

    def log_prob(self, x):
        xa = utils.points(x)
        inside = (xa >= self.low.array) & (xa <= self.high.array)
        shape = numpy.broadcast_shapes(numpy.shape(xa), self.batch_shape)
        lp = broadcast_to(-log(self.scale), shape)
        return utils.keep_where(inside, lp, -numpy.inf)

    @cache.cached_property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def params(self):
        if self._use_low_high:
            return {'low': self.low, 'high': self.high}
        return {'loc': self.loc, 'scale': self.scale}

    def sample_n(self, n):
        xp = self.low.xp
        u = xp.random.uniform(0, 1, size=(n,) + self.batch_shape).astype(
            self.low.dtype)
        return self.icdf(u)

    @cache.cached_property
    def stddev(self):
        return self.scale / math.sqrt(12)

    @property
    def support(self):
        return '[low, high]'

    @cache.cached_property
    def variance(self):
        return self.scale ** 2 / 12


@distribution.register_kl(Uniform, Uniform)
def _kl_uniform_uniform(dist1, dist2):
    kl = log(dist2.scale) - log(dist1.scale)
    inside = (dist2.low.array <= dist1.low.array) & \
        (dist1.high.array <= dist2.high.array)
    return utils.keep_where(inside, kl, numpy.inf)
