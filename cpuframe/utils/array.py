"""Small array helpers (Chainer's ``chainer.utils.array``)."""
import warnings

from cpuframe import backend


def as_vec(x):
    """``x`` flattened to 1-D (deprecated in Chainer: use ``ravel``)."""
    warnings.warn('chainer.utils.array.as_vec is deprecated. Please refer to '
                  'numpy.ravel or other array backend functions to flatten '
                  'ndarrays.', DeprecationWarning, stacklevel=2)
    return x if x.ndim == 1 else x.ravel()


def as_mat(x):
    """``x`` as a matrix ``(len(x), -1)`` (deprecated: use ``reshape``)."""
    warnings.warn('chainer.utils.array.as_mat is deprecated. Please refer to '
                  'numpy.reshape or other array backend functions to reshape '
                  'ndarrays.', DeprecationWarning, stacklevel=2)
    return x if x.ndim == 2 else x.reshape(len(x), -1)


def empty_like(x):
    """An uninitialized array like ``x`` (deprecated: ``xp.empty_like``)."""
    warnings.warn('chainer.utils.array.empty_like is deprecated. Please refer '
                  'to numpy.empty_like or other array backend functions to '
                  'initialize empty arrays.', DeprecationWarning, stacklevel=2)
    return backend.get_array_module(x).empty_like(x)


def size_of_shape(shape):
    """The number of elements of an array of ``shape`` (an int)."""
    size = 1
    for s in shape:
        size *= s
    return int(size)


def sum_to(x, shape):
    """Sum array ``x`` over broadcast axes so that it has ``shape``.

    Arrays only; for a Variable use ``F.sum_to``.
    """
    shape = tuple(shape)
    if x.shape == shape:
        return x
    from cpuframe.variable import Variable
    if isinstance(x, Variable):
        raise TypeError(
            'chainer.utils.sum_to does not support Variable input. '
            'Use chainer.functions.sum_to instead.')
    ndim = len(shape)
    lead = x.ndim - ndim
    axes = tuple(range(lead)) + tuple(
        i + lead for i, s in enumerate(shape)
        if s == 1 and x.shape[i + lead] != 1)
    y = x.sum(axis=axes, keepdims=True)
    if lead:
        y = y.reshape(y.shape[lead:])
    return y
