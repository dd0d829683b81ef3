"""Deterministic inputs for export tests: evenly spaced values, so that a
mismatch points at a position, and no ties (argmax, pooling)."""
import numpy


def _size(shape):
    return int(numpy.prod(shape, dtype=numpy.int64))


def increasing(*shape, **kwargs):
    """``shape`` filled with values rising evenly from -1 to 1 (``dtype``
    keyword, float32 by default)."""
    dtype = kwargs.pop('dtype', numpy.float32)
    if kwargs:
        raise TypeError('increasing: unexpected keyword arguments {}'.format(
            sorted(kwargs)))
    return numpy.linspace(-1., 1., num=_size(shape)).astype(
        dtype).reshape(shape)


def nonzero_increasing(*shape, **kwargs):
    """As :func:`increasing`, from -1 to 1 but never 0 (for division and
    logarithms of magnitudes)."""
    dtype = kwargs.pop('dtype', numpy.float32)
    if kwargs:
        raise TypeError('nonzero_increasing: unexpected keyword arguments '
                        '{}'.format(sorted(kwargs)))
    n = _size(shape)
    x = numpy.linspace(-1., 1., num=n + 1)
    x = x[x != 0][:n] if n % 2 == 1 else numpy.linspace(-1., 1., num=n)
    return x.astype(dtype).reshape(shape)


def positive_increasing(*shape, **kwargs):
    """``shape`` filled with values rising evenly over (0, 1] (for roots
    and logarithms)."""
    dtype = kwargs.pop('dtype', numpy.float32)
    if kwargs:
        raise TypeError('positive_increasing: unexpected keyword arguments '
                        '{}'.format(sorted(kwargs)))
    n = _size(shape)
    return (numpy.arange(1, n + 1) / max(n, 1)).astype(dtype).reshape(shape)
