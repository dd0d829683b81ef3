"""Broadcasted elementwise bias and scale: bias, scale."""
from cpuframe.variable import as_variable


def _broadcast_param(x, y, axis, name):
    from cpuframe.functions.array.broadcast import broadcast_to
    from cpuframe.functions.array.reshape import reshape
    x = as_variable(x)
    y = as_variable(y)
    if not isinstance(axis, int):
        raise TypeError('{}: axis must be an int, got {!r}'.format(name, axis))
    if not 0 <= axis <= x.ndim - y.ndim or \
            x.shape[axis:axis + y.ndim] != y.shape:
        raise ValueError(
            '{}: y.shape {} must equal x.shape[axis:axis + y.ndim] with x.'
            'shape {} and axis {}'.format(name, y.shape, x.shape, axis))
    if x.dtype != y.dtype:
        raise TypeError('{}: x dtype {} and y dtype {} differ'.format(
            name, x.dtype, y.dtype))
    shape = (1,) * axis + y.shape + (1,) * (x.ndim - axis - y.ndim)
    return x, broadcast_to(reshape(y, shape), x.shape)


def bias(x, y, axis=1):
    """``x + y``, with ``y`` broadcast over ``x`` starting at ``axis``.

    Args:
        x: a Variable or array.
        y: a Variable or array with ``y.shape == x.shape[axis:axis+y.ndim]``.
        axis: the first axis of ``x`` that ``y``'s axes line up with.

    >>> F.bias(np.zeros((2, 3)), np.arange(3.)).array
    array([[0., 1., 2.],
           [0., 1., 2.]])
    """
    x, y = _broadcast_param(x, y, axis, 'bias')
    return x + y


def scale(x, y, axis=1):
    """``x * y``, with ``y`` broadcast over ``x`` starting at ``axis``.

    Args:
        x: a Variable or array.
        y: a Variable or array with ``y.shape == x.shape[axis:axis+y.ndim]``.
        axis: the first axis of ``x`` that ``y``'s axes line up with.

    >>> F.scale(np.ones((2, 3)), np.arange(3.)).array
    array([[0., 1., 2.],
           [0., 1., 2.]])
    """
    x, y = _broadcast_param(x, y, axis, 'scale')
    return x * y
