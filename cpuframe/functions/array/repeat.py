"""Repeat each element of an array."""
import numpy

from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


def _is_int(value):
    return isinstance(value, (int, numpy.integer)) and \
        not isinstance(value, bool)


def _as_repeats(repeats):
    values = (repeats,) if _is_int(repeats) else repeats
    try:
        values = tuple(values)
    except TypeError:
        values = None
    if values is None or not all(_is_int(r) for r in values):
        raise TypeError('repeat: expected repeats as an int or a sequence '
                        'of ints, got {!r}'.format(repeats))
    if any(r < 0 for r in values):
        raise ValueError('repeat: expected every entry of repeats >= 0, '
                         'got {}'.format(repeats))
    return tuple(int(r) for r in values)


def _check_axis(axis):
    if axis is not None and not _is_int(axis):
        raise TypeError('repeat: expected an int axis or None, got {!r}'
                        .format(axis))
    return None if axis is None else int(axis)


class Repeat(FunctionNode):
    """``xp.repeat(x, repeats, axis)``; backward sums each element's copies."""

    def __init__(self, repeats, axis=None):
        self.repeats = _as_repeats(repeats)
        self.axis = _check_axis(axis)

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('repeats', 'axis')

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        x = in_types[0]
        if self.axis is None:
            length = x.size
        else:
            axis = type_check.make_variable(self.axis, 'axis')
            type_check.expect(-x.ndim <= axis, axis < x.ndim)
            length = x.shape[self.axis % type_check.eval(x.ndim)]
        if len(self.repeats) != 1:
            n_repeats = type_check.make_variable(
                len(self.repeats), 'len(repeats)')
            type_check.expect(n_repeats == length)

    def forward(self, inputs):
        x, = inputs
        self._in_shape = x.shape
        xp = backend.get_array_module(x)
        repeats = self.repeats[0] if len(self.repeats) == 1 \
            else list(self.repeats)
        return xp.repeat(x, repeats, axis=self.axis),

    def backward(self, indexes, grad_outputs):
        return RepeatGrad(self.repeats, self.axis,
                          self._in_shape).apply(grad_outputs)


class RepeatGrad(FunctionNode):
    """Sums each run of copies that ``Repeat`` made (its adjoint)."""

    def __init__(self, repeats, axis, in_shape):
        self.repeats = repeats
        self.axis = axis
        self._in_shape = in_shape

    def forward(self, inputs):
        gy, = inputs
        xp = backend.get_array_module(gy)
        if self.axis is None:
            axis = 0
            shape = (utils.size_of_shape(self._in_shape),)
        else:
            axis = self.axis % len(self._in_shape)
            shape = self._in_shape
        n = shape[axis]
        if len(self.repeats) == 1:
            r = self.repeats[0]
            split = gy.shape[:axis] + (n, r) + gy.shape[axis + 1:]
            gx = gy.reshape(split).sum(axis=axis + 1)
        else:
            from cpuframe.functions.array._indexing import add_at
            owner = xp.repeat(xp.arange(n), list(self.repeats))
            gx = xp.zeros(shape, dtype=gy.dtype)
            add_at(gx, (slice(None),) * axis + (owner,), gy)
        return gx.reshape(self._in_shape).astype(gy.dtype, copy=False),

    def backward(self, indexes, grad_outputs):
        return Repeat(self.repeats, self.axis).apply(grad_outputs)


def repeat(x, repeats, axis=None):
    """Each element of ``x`` repeated, as ``numpy.repeat`` does.

    Args:
        x: a Variable or array.
        repeats: an int, or a sequence of ints with one entry per element
            along ``axis`` (or a single entry, used for all).
        axis: the axis to repeat along; ``None`` flattens ``x`` first.

    >>> F.repeat(np.array([1., 2.], np.float32), (1, 2)).array
    array([1., 2., 2.], dtype=float32)
    """
    return Repeat(repeats, axis).apply((x,))[0]
