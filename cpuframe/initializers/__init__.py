"""Initializers fill parameter arrays in place.

The foundation provides the base class and the constant family; the random
initializers (Normal, HeNormal, GlorotUniform, ...) build on the same base.
"""
import numpy

from cpuframe import backend
from cpuframe.configuration import config


class Initializer:
    """Fills an array in place when called: ``initializer(array)``.

    Args:
        dtype: the dtype of arrays it creates (``config.dtype`` if None).
    """

    def __init__(self, dtype=None):
        self.dtype = dtype

    def __call__(self, array):
        raise NotImplementedError


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
        fill = self.fill_value
        if hasattr(fill, 'shape'):
            fill = backend.get_device_from_array(array).send(fill)
        array[...] = fill


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


def _get_initializer(initializer):
    if initializer is None:
        return None
    if numpy.isscalar(initializer) or backend.is_array(initializer):
        return Constant(initializer)
    if not callable(initializer):
        raise TypeError('initializer: expected an initializer, a scalar or '
                        'an array, got {}'.format(type(initializer).__name__))
    return initializer


def generate_array(initializer, shape, xp, dtype=None, device=None):
    """Allocate an array of ``shape`` and fill it with ``initializer``.

    The dtype is ``dtype``, else the initializer's, else ``config.dtype``.
    """
    dtype = dtype or getattr(initializer, 'dtype', None) or config.dtype
    if isinstance(shape, (int, numpy.integer)):
        shape = (int(shape),)
    array = numpy.empty(tuple(shape), dtype=numpy.dtype(dtype))
    initializer(array)
    if device is not None:
        return device.send(array)
    return backend.get_device(xp).send(array) if xp is not numpy else array
