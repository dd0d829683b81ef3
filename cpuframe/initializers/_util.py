"""Helpers shared by the initializer submodules (not part of the API)."""
import numpy

from cpuframe import backend
from cpuframe.initializer import Initializer


class ScaledRandom(Initializer):
    """An initializer drawing random values of a given ``scale`` (the base
    of the normal and uniform families; holds scale, dtype and rng)."""

    def __init__(self, scale=1.0, dtype=None, rng=None):
        super().__init__(dtype)
        self.scale = scale
        self.rng = rng


def rng_or_global(rng):
    """``rng``, or NumPy's global random state when None."""
    return numpy.random if rng is None else rng


def fill(array, values):
    """Write host ``values`` into ``array`` on the array's own device."""
    array[...] = backend.get_device_from_array(array).send(
        numpy.asarray(values, dtype=array.dtype))
