"""Broadcast a second operand along ``x``'s axes from ``axis`` on.

Shared by the Scale and Bias links (Chainer's F.scale / F.bias semantics:
``y.shape == x.shape[axis:axis + y.ndim]``).
"""
from cpuframe.functions.array.broadcast import broadcast_to
from cpuframe.functions.array.reshape import reshape


def broadcast_along(label, x, y, axis):
    """``y`` reshaped and broadcast to ``x.shape``, aligned at ``axis``."""
    x_shape = tuple(x.shape)
    y_shape = tuple(y.shape)
    if not isinstance(axis, int) or axis < 0:
        raise ValueError('{}: axis must be a non-negative int, got {!r}'
                         .format(label, axis))
    if len(x_shape) < axis + len(y_shape) or \
            x_shape[axis:axis + len(y_shape)] != y_shape:
        raise ValueError(
            '{}: the second operand of shape {} does not match the input of '
            'shape {} at axis {} (expected x.shape[{}:{}] == {})'.format(
                label, y_shape, x_shape, axis, axis, axis + len(y_shape),
                y_shape))
    if x.dtype != y.dtype:
        raise ValueError('{}: dtype mismatch: input {} vs operand {}'.format(
            label, x.dtype, y.dtype))
    tail = len(x_shape) - axis - len(y_shape)
    extended = (1,) * axis + y_shape + (1,) * tail
    if extended != y_shape:
        y = reshape(y, extended)
    if extended != x_shape:
        y = broadcast_to(y, x_shape)
    return y
