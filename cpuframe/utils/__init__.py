"""Small array helpers shared by functions."""
import numpy

from cpuframe import backend
from cpuframe.utils.walker_alias import WalkerAlias  # noqa: F401


def force_array(x, dtype=None):
    """Turn a NumPy scalar result back into a 0-dim array (of ``dtype``)."""
    if numpy.isscalar(x) or isinstance(x, numpy.generic):
        return numpy.asarray(x, dtype=dtype)
    if dtype is not None and x.dtype != dtype:
        return x.astype(dtype, copy=False)
    return x


def force_type(dtype, value):
    """Cast a scalar or array ``value`` to ``dtype``."""
    if numpy.isscalar(value):
        return dtype.type(value)
    if value.dtype != dtype:
        return value.astype(dtype, copy=False)
    return value


def sum_to(x, shape):
    """Sum array ``x`` over broadcast axes so that it has ``shape``."""
    shape = tuple(shape)
    if x.shape == shape:
        return x
    ndim = len(shape)
    lead = x.ndim - ndim
    axes = tuple(range(lead)) + tuple(
        i + lead for i, s in enumerate(shape) if s == 1 and x.shape[i + lead] != 1)
    y = x.sum(axis=axes, keepdims=True)
    if lead:
        y = y.reshape(y.shape[lead:])
    return y


def size_of_shape(shape):
    size = 1
    for s in shape:
        size *= s
    return size


def _xp(*arrays):
    return backend.get_array_module(*arrays)
