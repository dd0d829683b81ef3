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


def get_fans(shape):
    """``(fan_in, fan_out)`` of a weight of ``shape`` (out, in, *kernel)."""
    if len(shape) < 2:
        raise ValueError('get_fans: expected a shape with at least 2 axes, '
                         'got {}'.format(tuple(shape)))
    receptive = 1
    for s in shape[2:]:
        receptive *= s
    return shape[1] * receptive, shape[0] * receptive


def _rng(rng):
    return numpy.random if rng is None else rng


def _fill(array, values):
    array[...] = backend.get_device_from_array(array).send(
        numpy.asarray(values, dtype=array.dtype))


class Normal(Initializer):
    """Fills with samples of N(0, scale^2)."""

    def __init__(self, scale=0.05, dtype=None, rng=None):
        super().__init__(dtype)
        self.scale = scale
        self.rng = rng

    def __call__(self, array):
        _fill(array, _rng(self.rng).normal(0.0, self.scale, array.shape))


class Uniform(Initializer):
    """Fills with samples of U(-scale, scale)."""

    def __init__(self, scale=0.05, dtype=None, rng=None):
        super().__init__(dtype)
        self.scale = scale
        self.rng = rng

    def __call__(self, array):
        _fill(array, _rng(self.rng).uniform(-self.scale, self.scale,
                                             array.shape))


class _FanScaled(Initializer):
    """Normal or uniform samples scaled by a function of the fans."""

    _uniform = False

    def __init__(self, scale=1.0, dtype=None, rng=None):
        super().__init__(dtype)
        self.scale = scale
        self.rng = rng

    def _std(self, fan_in, fan_out):
        raise NotImplementedError

    def __call__(self, array):
        std = self.scale * self._std(*get_fans(array.shape))
        if self._uniform:
            # U(-a, a) has standard deviation a / sqrt(3).
            Uniform(std * numpy.sqrt(3.0), rng=self.rng)(array)
        else:
            Normal(std, rng=self.rng)(array)


class LeCunNormal(_FanScaled):
    """N(0, scale^2 / fan_in)."""

    def _std(self, fan_in, fan_out):
        return numpy.sqrt(1.0 / fan_in)


class GlorotNormal(_FanScaled):
    """N(0, scale^2 * 2 / (fan_in + fan_out))."""

    def _std(self, fan_in, fan_out):
        return numpy.sqrt(2.0 / (fan_in + fan_out))


class HeNormal(_FanScaled):
    """N(0, scale^2 * 2 / fan) with ``fan_option`` 'fan_in' or 'fan_out'."""

    def __init__(self, scale=1.0, dtype=None, fan_option='fan_in', rng=None):
        super().__init__(scale, dtype, rng)
        if fan_option not in ('fan_in', 'fan_out'):
            raise ValueError("HeNormal: expected fan_option 'fan_in' or "
                             "'fan_out', got {!r}".format(fan_option))
        self.fan_option = fan_option

    def _std(self, fan_in, fan_out):
        fan = fan_in if self.fan_option == 'fan_in' else fan_out
        return numpy.sqrt(2.0 / fan)


class LeCunUniform(LeCunNormal):
    """U(-s, s) with the variance of LeCunNormal."""

    _uniform = True


class GlorotUniform(GlorotNormal):
    """U(-s, s) with the variance of GlorotNormal."""

    _uniform = True


class HeUniform(HeNormal):
    """U(-s, s) with the variance of HeNormal."""

    _uniform = True


class Identity(Initializer):
    """``scale`` times the identity matrix (square 2-D arrays only)."""

    def __init__(self, scale=1.0, dtype=None):
        super().__init__(dtype)
        self.scale = scale

    def __call__(self, array):
        if array.ndim != 2 or array.shape[0] != array.shape[1]:
            raise ValueError('Identity: expected a square matrix, got shape '
                             '{}'.format(array.shape))
        _fill(array, self.scale * numpy.identity(array.shape[0]))


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix scaled by ``scale``.

    The array is viewed as (shape[0], prod(shape[1:])); its rows (or
    columns, whichever are fewer) are orthonormal.
    """

    def __init__(self, scale=1.1, dtype=None, rng=None):
        super().__init__(dtype)
        self.scale = scale
        self.rng = rng

    def __call__(self, array):
        if array.ndim < 2:
            raise ValueError('Orthogonal: expected an array with at least 2 '
                             'axes, got shape {}'.format(array.shape))
        rows = array.shape[0]
        cols = int(numpy.prod(array.shape[1:]))
        a = _rng(self.rng).normal(size=(max(rows, cols), min(rows, cols)))
        q, r = numpy.linalg.qr(a)
        q *= numpy.sign(numpy.diag(r))
        if rows < cols:
            q = q.T
        _fill(array, self.scale * q.reshape(array.shape))
