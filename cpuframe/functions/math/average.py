"""(Weighted) average over axes."""
from cpuframe import utils
from cpuframe.functions.math._reduction import normalize_axis
from cpuframe.variable import as_variable


def average(x, axis=None, weights=None, keepdims=False):
    """Average of ``x`` over ``axis``, optionally weighted (numpy.average).

    Args:
        x: a float Variable or array.
        axis: None (all axes), an int or a tuple of ints.
        weights: None, an array/Variable of ``x``'s shape, or a 1-D one of
            length ``x.shape[axis]`` with a single int ``axis``.  The result
            is ``sum(x * w, axis) / sum(w, axis)``; gradients flow to both.
        keepdims: keep the reduced axes with size one.

    >>> F.average(np.array([1., 2., 3.]), weights=np.array([1., 0., 1.])).array
    array(2.)
    """
    from cpuframe.functions.array.broadcast import broadcast_to
    from cpuframe.functions.array.reshape import reshape
    from cpuframe.functions.math.sum import sum as sum_
    x = as_variable(x)
    if x.dtype.kind != 'f':
        raise TypeError('average: x must be a float array, got dtype '
                        '{}'.format(x.dtype))
    ax = normalize_axis(axis, x.ndim, 'average')
    if weights is None:
        count = x.size if ax is None else utils.size_of_shape(
            [x.shape[a] for a in ax])
        return sum_(x, axis=ax, keepdims=keepdims) * (
            1.0 / count if count else float('nan'))
    w = as_variable(weights)
    if w.dtype != x.dtype:
        raise TypeError('average: weights dtype {} differs from x dtype '
                        '{}'.format(w.dtype, x.dtype))
    if w.shape == x.shape:
        return (sum_(x * w, axis=ax, keepdims=keepdims) /
                sum_(w, axis=ax, keepdims=keepdims))
    if ax is None or len(ax) != 1:
        raise ValueError('average: weights of shape {} differing from x\'s '
                         '{} need a single int axis, got axis={}'.format(
                             w.shape, x.shape, axis))
    if w.ndim != 1 or w.shape[0] != x.shape[ax[0]]:
        raise ValueError('average: 1-D weights of length x.shape[{}] = {} '
                         'expected, got shape {}'.format(
                             axis, x.shape[ax[0]], w.shape))
    shape = [1] * x.ndim
    shape[ax[0]] = x.shape[ax[0]]
    wb = broadcast_to(reshape(w, tuple(shape)), x.shape)
    return sum_(x * wb, axis=ax, keepdims=keepdims) / sum_(w)
