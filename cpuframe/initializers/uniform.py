"""Initializers drawing from symmetric uniform distributions U(-s, s)."""
import numpy

from cpuframe.initializer import get_fans
from cpuframe.initializers._util import ScaledRandom, fill, rng_or_global
from cpuframe.initializers.normal import check_fan_option


class Uniform(ScaledRandom):
    """Fills with samples of U(-scale, scale)."""

    def __init__(self, scale=0.05, dtype=None, rng=None):
        super().__init__(scale, dtype, rng)

    def __call__(self, array):
        fill(array, rng_or_global(self.rng).uniform(-self.scale, self.scale,
                                                    array.shape))


class LeCunUniform(ScaledRandom):
    """U(-s, s) with s = scale * sqrt(3 / fan_in)."""

    def __call__(self, array):
        fan_in, _ = get_fans(array.shape)
        Uniform(self.scale * numpy.sqrt(3.0 / fan_in), rng=self.rng)(array)


class GlorotUniform(ScaledRandom):
    """U(-s, s) with s = scale * sqrt(6 / (fan_in + fan_out))."""

    def __call__(self, array):
        fan_in, fan_out = get_fans(array.shape)
        bound = self.scale * numpy.sqrt(6.0 / (fan_in + fan_out))
        Uniform(bound, rng=self.rng)(array)


class HeUniform(ScaledRandom):
    """U(-s, s) with s = scale * sqrt(6 / fan).

    The fan is fan_in as in Chainer; ``fan_option='fan_out'`` (an extension)
    uses fan_out instead.
    """

    def __init__(self, scale=1.0, dtype=None, fan_option='fan_in', rng=None):
        super().__init__(scale, dtype, rng)
        check_fan_option('HeUniform', fan_option)
        self.fan_option = fan_option

    def __call__(self, array):
        fan_in, fan_out = get_fans(array.shape)
        fan = fan_in if self.fan_option == 'fan_in' else fan_out
        Uniform(self.scale * numpy.sqrt(6.0 / fan), rng=self.rng)(array)
