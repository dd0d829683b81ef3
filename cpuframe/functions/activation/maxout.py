"""Maxout: the maximum over groups of channels."""
import numpy

from cpuframe.variable import as_variable


def _is_int(value):
    return isinstance(value, (int, numpy.integer)) and \
        not isinstance(value, bool)


def maxout(x, pool_size, axis=1):
    """Maxout (Goodfellow et al., 2013) over groups along ``axis``.

    ``x.shape[axis]`` is split into ``x.shape[axis] // pool_size`` groups of
    ``pool_size`` consecutive entries, and each group is reduced to its
    maximum:

    .. math:: y_{..., k, ...} = \\max_{0 \\le j < p} x_{..., k p + j, ...}

    Args:
        x: a float Variable or array.
        pool_size (int): the group size ``p``; it must divide
            ``x.shape[axis]``.
        axis (int): the axis to reduce (negative counts from the end).

    Returns:
        A Variable whose ``axis`` length is ``x.shape[axis] // pool_size``.
        The gradient flows to the maximal entry of each group (to every one
        of them at a tie, as in :func:`max`).

    >>> F.maxout(np.array([[1., 3., 2., 0.]], np.float32), 2).array
    array([[3., 2.]], dtype=float32)
    """
    from cpuframe.functions.array.reshape import reshape
    from cpuframe.functions.math.minmax import max as max_
    if not _is_int(pool_size):
        raise TypeError('maxout: expected an int pool_size, got {!r}'.format(
            pool_size))
    if pool_size <= 0:
        raise ValueError('maxout: expected a positive pool_size, got '
                         '{}'.format(pool_size))
    if not _is_int(axis):
        raise TypeError('maxout: expected an int axis, got {!r}'.format(axis))
    x = as_variable(x)
    ndim = x.ndim
    if not -ndim <= axis < ndim:
        raise ValueError('maxout: expected -x.ndim <= axis < x.ndim, got '
                         'axis={} with x.ndim={}'.format(axis, ndim))
    axis = int(axis) % ndim
    length = x.shape[axis]
    if length % pool_size != 0:
        raise ValueError(
            'maxout: expected x.shape[axis] divisible by pool_size, got '
            'x.shape[{}]={} and pool_size={}'.format(axis, length, pool_size))
    shape = x.shape[:axis] + (length // pool_size, int(pool_size)) + \
        x.shape[axis + 1:]
    return max_(reshape(x, shape), axis=axis + 1)
