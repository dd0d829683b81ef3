"""What the reductions (sum, mean, prod, min/max, logsumexp, average, and
batch normalization's statistics) share: checking their axis argument and
broadcasting a reduced gradient back to the input's shape."""
from cpuframe.functions.array.broadcast import broadcast_to_array
from cpuframe.functions.array.reshape import reshape_array
from cpuframe.utils import type_check


def normalize_axis(axis, ndim, where):
    if axis is None:
        return None
    if type(axis) is int and 0 <= axis < ndim:
        return (axis,)  # (the common case: a bias gradient's axis 0)
    if isinstance(axis, int):
        axis = (axis,)
    out = []
    for a in axis:
        if not -ndim <= a < ndim:
            raise type_check.InvalidType(
                '-x.ndim <= axis < x.ndim for every axis',
                '{}: axis {} with x.ndim = {}'.format(where, a, ndim))
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ValueError('{}: duplicate axes in {}'.format(where, axis))
    return tuple(sorted(out))


def _kept_dims_shape(x_shape, axis, keepdims):
    # The shape of a reduced gradient with the reduced axes kept (as 1),
    # or None where it has it already.
    if keepdims:
        return None
    if axis is None:
        return (1,) * len(x_shape)
    shape = list(x_shape)
    for a in axis:
        shape[a] = 1
    return tuple(shape)


def expand_back(gy, x_shape, axis, keepdims):
    """Reshape a reduced gradient so it broadcasts back to ``x_shape``."""
    from cpuframe.functions.array.broadcast import broadcast_to
    from cpuframe.functions.array.reshape import reshape
    shape = _kept_dims_shape(x_shape, axis, keepdims)
    if shape is not None:
        gy = reshape(gy, shape)
    return broadcast_to(gy, x_shape)


def expand_back_array(gy, x_shape, axis, keepdims):
    """``expand_back`` on an array, nothing recorded (for
    ``backward_arrays``)."""
    shape = _kept_dims_shape(x_shape, axis, keepdims)
    if shape is not None:
        gy = reshape_array(gy, shape)
    return broadcast_to_array(gy, x_shape)
