"""Initializers drawing from zero-mean normal distributions."""
import numpy

from cpuframe.initializer import get_fans
from cpuframe.initializers._util import ScaledRandom, fill, rng_or_global


class Normal(ScaledRandom):
    """Fills with samples of N(0, scale^2)."""

    def __init__(self, scale=0.05, dtype=None, rng=None):
        super().__init__(scale, dtype, rng)

    def __call__(self, array):
        fill(array, rng_or_global(self.rng).normal(0.0, self.scale,
                                                   array.shape))


class LeCunNormal(ScaledRandom):
    """N(0, s^2) with s = scale * sqrt(1 / fan_in)."""

    def __call__(self, array):
        fan_in, _ = get_fans(array.shape)
        Normal(self.scale * numpy.sqrt(1.0 / fan_in), rng=self.rng)(array)


class GlorotNormal(ScaledRandom):
    """N(0, s^2) with s = scale * sqrt(2 / (fan_in + fan_out))."""

    def __call__(self, array):
        fan_in, fan_out = get_fans(array.shape)
        std = self.scale * numpy.sqrt(2.0 / (fan_in + fan_out))
        Normal(std, rng=self.rng)(array)


def check_fan_option(cls_name, fan_option):
    if fan_option not in ('fan_in', 'fan_out'):
        raise ValueError("{}: expected fan_option 'fan_in' or 'fan_out', "
                         "got {!r}".format(cls_name, fan_option))


class HeNormal(ScaledRandom):
    """N(0, s^2) with s = scale * sqrt(2 / fan).

    ``fan_option`` picks the fan: 'fan_in' (default) or 'fan_out'.
    """

    def __init__(self, scale=1.0, dtype=None, fan_option='fan_in', rng=None):
        super().__init__(scale, dtype, rng)
        check_fan_option('HeNormal', fan_option)
        self.fan_option = fan_option

    def __call__(self, array):
        fan_in, fan_out = get_fans(array.shape)
        fan = fan_in if self.fan_option == 'fan_in' else fan_out
        Normal(self.scale * numpy.sqrt(2.0 / fan), rng=self.rng)(array)
