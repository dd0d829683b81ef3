"""Repeat a whole array along each axis."""
import numpy

from cpuframe import backend
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


def _is_int(value):
    return isinstance(value, (int, numpy.integer)) and \
        not isinstance(value, bool)


def _as_reps(reps):
    values = (reps,) if _is_int(reps) else reps
    try:
        values = tuple(values)
    except TypeError:
        values = None
    if values is None or not all(_is_int(r) for r in values):
        raise TypeError('tile: expected reps as an int or a tuple of ints, '
                        'got {!r}'.format(reps))
    if any(r < 0 for r in values):
        raise ValueError(
            'tile: expected every entry of reps >= 0, got {}'.format(reps))
    return tuple(int(r) for r in values)


class Tile(FunctionNode):
    """``xp.tile(x, reps)``; backward sums the gradient over the copies."""

    def __init__(self, reps):
        self.reps = _as_reps(reps)

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))

    def forward(self, inputs):
        x, = inputs
        self._in_shape = x.shape
        xp = backend.get_array_module(x)
        return xp.tile(x, self.reps),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.array.reshape import reshape
        from cpuframe.functions.math.sum import sum as sum_
        gy, = grad_outputs
        ndim = max(len(self.reps), len(self._in_shape))
        reps = (1,) * (ndim - len(self.reps)) + self.reps
        shape = (1,) * (ndim - len(self._in_shape)) + self._in_shape
        # Output axis d is laid out as (copy, element); split it in two and
        # sum over the copies.
        interleaved = []
        for r, s in zip(reps, shape):
            interleaved += [r, s]
        gx = reshape(gy, tuple(interleaved))
        gx = sum_(gx, axis=tuple(range(0, 2 * ndim, 2)))
        return reshape(gx, self._in_shape),


def tile(x, reps):
    """``x`` repeated ``reps[d]`` times along each axis ``d``.

    Follows ``numpy.tile``: when ``len(reps)`` exceeds ``x.ndim``, ``x``
    gets leading axes of length one; when it falls short, ``reps`` gets
    leading ones.

    >>> F.tile(np.zeros((2, 3), np.float32), (2, 1, 2)).shape
    (2, 2, 6)
    """
    return Tile(reps).apply((x,))[0]
