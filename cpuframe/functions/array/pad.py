"""Pad an array."""
import numpy

from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check

# Modes whose padding does not depend on x: the gradient is the interior.
_INTERIOR_MODES = ('constant', 'empty')
# Modes whose padding copies elements of x: the gradient gathers the copies.
_COPY_MODES = ('edge', 'reflect', 'symmetric', 'wrap')


def _normalize_pad_width(pad_width, ndim):
    """``pad_width`` as ``ndim`` (before, after) pairs of ints >= 0."""
    arr = numpy.asarray(pad_width)
    if arr.dtype.kind not in 'iu':
        raise type_check.InvalidType(
            'pad_width made of ints',
            'pad_width = {!r}'.format(pad_width))
    try:
        arr = numpy.broadcast_to(arr, (ndim, 2))
    except ValueError:
        raise type_check.InvalidType(
            'pad_width broadcastable to (x.ndim, 2) = ({}, 2)'.format(ndim),
            'pad_width = {!r}'.format(pad_width)) from None
    if (arr < 0).any():
        raise type_check.InvalidType(
            'pad_width >= 0', 'pad_width = {!r}'.format(pad_width))
    return tuple((int(b), int(a)) for b, a in arr)


def _as_pad_arg(pad):
    """The normalized pairs as ``xp.pad`` takes them (it rejects ``()``)."""
    return pad if pad else 0


class Pad(FunctionNode):
    """``xp.pad(x, pad_width, mode, **keywords)``.

    Backward supports the modes whose padding is a constant ('constant',
    'empty') or a copy of elements of ``x`` ('edge', 'reflect' and
    'symmetric' with the default ``reflect_type``, 'wrap').
    """

    def __init__(self, pad_width, mode='constant', **keywords):
        self.pad_width = pad_width
        self.mode = mode
        self.keywords = keywords

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('pad_width',)

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        _normalize_pad_width(self.pad_width, type_check.eval(in_types[0].ndim))

    def forward(self, inputs):
        x, = inputs
        self._in_shape = x.shape
        self._pad = _normalize_pad_width(self.pad_width, x.ndim)
        xp = backend.get_array_module(x)
        return xp.pad(x, _as_pad_arg(self._pad), mode=self.mode,
                      **self.keywords),

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        if self.mode in _INTERIOR_MODES:
            from cpuframe.functions.array.get_item import get_item
            interior = tuple(slice(b, b + s)
                             for (b, _), s in zip(self._pad, self._in_shape))
            return get_item(gy, interior),
        if self.mode in _COPY_MODES and \
                self.keywords.get('reflect_type', 'even') == 'even':
            return PadGrad(self._pad, self.mode, self.keywords,
                           self._in_shape).apply((gy,))
        raise NotImplementedError(
            'pad: backward is not implemented for mode={!r} with keywords '
            '{}'.format(self.mode, self.keywords))


class PadGrad(FunctionNode):
    """The adjoint of a copying pad: each element of x sums its copies."""

    def __init__(self, pad, mode, keywords, in_shape):
        self._pad = pad
        self.mode = mode
        self.keywords = keywords
        self._in_shape = in_shape

    def forward(self, inputs):
        gy, = inputs
        from cpuframe.functions.array._indexing import add_at
        xp = backend.get_array_module(gy)
        size = utils.size_of_shape(self._in_shape)
        # Padding the flat positions of x tells where each output came from.
        source = xp.pad(xp.arange(size).reshape(self._in_shape),
                        _as_pad_arg(self._pad), mode=self.mode,
                        **self.keywords)
        gx = xp.zeros(size, dtype=gy.dtype)
        add_at(gx, source.ravel(), gy.ravel())
        return gx.reshape(self._in_shape),

    def backward(self, indexes, grad_outputs):
        return pad(grad_outputs[0], self._pad, self.mode, **self.keywords),


def pad(x, pad_width, mode='constant', **keywords):
    """``x`` padded as ``numpy.pad`` does.

    Args:
        x: a Variable or array.
        pad_width: an int, a (before, after) pair, or one pair per axis.
        mode: a ``numpy.pad`` mode.  Gradients are available for
            'constant' (the default), 'empty', 'edge', 'reflect',
            'symmetric' and 'wrap'.
        keywords: passed to ``numpy.pad``, e.g. ``constant_values``.

    >>> F.pad(np.ones((2,), np.float32), 1, constant_values=-1).array
    array([-1.,  1.,  1., -1.], dtype=float32)
    """
    return Pad(pad_width, mode, **keywords).apply((x,))[0]
