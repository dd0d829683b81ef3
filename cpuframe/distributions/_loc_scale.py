"""What the univariate location-scale distributions on the real line share
(Cauchy, Gumbel, Laplace, Normal): the two parameters, broadcast to one
batch shape, their properties, and sampling through the inverse CDF."""
from cpuframe import distribution
from cpuframe.distributions import utils


class LocScale(distribution.Distribution):
    """Base of a distribution with parameters ``loc`` and ``scale``."""

    def __init__(self, loc, scale):
        name = type(self).__name__
        self._loc, self._scale = utils.broadcast_params(
            name, ('loc', 'scale'),
            (utils.as_param(name, 'loc', loc),
             utils.as_param(name, 'scale', scale)))

    @property
    def loc(self):
        return self._loc

    @property
    def scale(self):
        return self._scale

    @property
    def batch_shape(self):
        return self.loc.shape

    @property
    def event_shape(self):
        return ()

    @property
    def params(self):
        return {'loc': self.loc, 'scale': self.scale}

    @property
    def support(self):
        return 'real'

    def sample_n(self, n):
        # Reparameterised: icdf is differentiable in loc and scale.
        u = utils.uniform_open(self.loc.xp, self.loc.dtype,
                               (n,) + self.loc.shape)
        return self.icdf(u)
