"""Deterministic initializers: Identity and the constant fills."""
import numpy

from cpuframe import backend
from cpuframe.initializer import Initializer
from cpuframe.initializers._util import fill


class Identity(Initializer):
    """``scale`` times the identity matrix (square 2-D arrays only)."""

    def __init__(self, scale=1.0, dtype=None):
        super().__init__(dtype)
        self.scale = scale

    def __call__(self, array):
        if array.ndim != 2 or array.shape[0] != array.shape[1]:
            raise ValueError('Identity: expected a square matrix, got shape '
                             '{}'.format(array.shape))
        fill(array, self.scale * numpy.identity(array.shape[0]))


class Constant(Initializer):
    """Fills with a scalar or broadcasts an array ``fill_value``."""

    def __init__(self, fill_value, dtype=None):
        if dtype is None and hasattr(fill_value, 'dtype') and \
                getattr(fill_value, 'ndim', 0) > 0:
            dtype = fill_value.dtype
        super().__init__(dtype)
        self.fill_value = fill_value

    def __call__(self, array):
        if self.dtype is not None and array.dtype != numpy.dtype(self.dtype):
            raise ValueError(
                'Constant: expected an array of dtype {}, got {}'.format(
                    numpy.dtype(self.dtype), array.dtype))
        value = self.fill_value
        if hasattr(value, 'shape'):
            value = backend.get_device_from_array(array).send(value)
        array[...] = value


class Zero(Constant):
    """Fills with zeros."""

    def __init__(self, dtype=None):
        super().__init__(0.0, dtype=dtype)


class One(Constant):
    """Fills with ones."""

    def __init__(self, dtype=None):
        super().__init__(1.0, dtype=dtype)


class NaN(Constant):
    """Fills with NaN (the value of a parameter nobody initialized)."""

    def __init__(self, dtype=None):
        super().__init__(numpy.nan, dtype=dtype)
