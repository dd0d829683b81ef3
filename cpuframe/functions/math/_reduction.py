"""What the reductions (sum, mean, prod, min/max, logsumexp, average, and
batch normalization's statistics) share: checking their axis argument and
broadcasting a reduced gradient back to the input's shape."""
from cpuframe.utils import type_check


def normalize_axis(axis, ndim, where):
    if axis is None:
        return None
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


def expand_back(gy, x_shape, axis, keepdims):
    """Reshape a reduced gradient so it broadcasts back to ``x_shape``."""
    from cpuframe.functions.array.broadcast import broadcast_to
    from cpuframe.functions.array.reshape import reshape
    if not keepdims and axis is not None:
        shape = list(x_shape)
        for a in axis:
            shape[a] = 1
        gy = reshape(gy, tuple(shape))
    elif not keepdims:
        gy = reshape(gy, (1,) * len(x_shape))
    return broadcast_to(gy, x_shape)
