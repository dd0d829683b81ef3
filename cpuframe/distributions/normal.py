"""The normal (Gaussian) distribution."""
import math

from cpuframe import distribution
from cpuframe.distributions import _loc_scale, utils
from cpuframe.functions.math.exponential import exp, log
from cpuframe.functions.math.log_ndtr import log_ndtr
from cpuframe.functions.math.ndtr import ndtr
from cpuframe.functions.math.ndtri import ndtri
from cpuframe.utils import argument, cache

_ENTROPY_C = 0.5 * math.log(2 * math.pi * math.e)
_LOG_PROB_C = -0.5 * math.log(2 * math.pi)


class Normal(_loc_scale.LocScale):
    """Normal distribution ``N(loc, scale ** 2)``.

    ``p(x) = exp(-(x - loc) ** 2 / (2 scale ** 2)) / sqrt(2 pi scale ** 2)``

    Args:
        loc: the mean (Variable or array).
        scale: the standard deviation.  Give either ``scale`` or the
            keyword ``log_scale`` (its log), not both.

    Sampling is reparameterised: ``loc + scale * eps``, differentiable with
    respect to both parameters.
    """

    def __init__(self, loc, scale=None, **kwargs):
        log_scale = None
        if kwargs:
            log_scale, = argument.parse_kwargs(kwargs,
                                               ('log_scale', log_scale))
        if not (scale is None) ^ (log_scale is None):
            raise ValueError('Normal: either `scale` or `log_scale` (not '
                             'both) must have a value.')
        second = 'scale' if scale is not None else 'log_scale'
        self._loc, other = utils.broadcast_params(
            'Normal', ('loc', second),
            (utils.as_param('Normal', 'loc', loc),
             utils.as_param('Normal', second,
                            scale if scale is not None else log_scale)))
        self._scale = other if scale is not None else None
        self._log_scale = other if scale is None else None

    @cache.cached_property
    def scale(self):
        return self._scale if self._scale is not None \
            else exp(self._log_scale)

    @cache.cached_property
    def log_scale(self):
        return self._log_scale if self._log_scale is not None \
            else log(self._scale)

    def cdf(self, x):
        return ndtr((x - self.loc) / self.scale)

    def survival_function(self, x):
        return ndtr((self.loc - x) / self.scale)

    def log_cdf(self, x):
        return log_ndtr((x - self.loc) / self.scale)

    def log_survival_function(self, x):
        return log_ndtr((self.loc - x) / self.scale)

    def icdf(self, x):
        return self.loc + self.scale * ndtri(x)

    @cache.cached_property
    def entropy(self):
        return self.log_scale + _ENTROPY_C

    def log_prob(self, x):
        return _LOG_PROB_C - self.log_scale \
            - 0.5 * (x - self.loc) ** 2 / self.variance

    def prob(self, x):
        return exp(self.log_prob(x))

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    def sample_n(self, n):
        xp = self.loc.xp
        eps = utils.random_like(xp, self.loc.dtype, (n,) + self.loc.shape,
                                'standard_normal')
        return self.loc + self.scale * eps

    @cache.cached_property
    def stddev(self):
        return self.scale

    @cache.cached_property
    def variance(self):
        return self.scale ** 2


@distribution.register_kl(Normal, Normal)
def _kl_normal_normal(dist1, dist2):
    return (dist2.log_scale - dist1.log_scale
            + 0.5 * (dist1.variance + (dist1.loc - dist2.loc) ** 2)
            / dist2.variance - 0.5)
