"""im2col and col2im for N-d convolution, deconvolution and pooling.

Layouts follow Chainer: an image is ``(N, C, *size)`` and its columns are
``(N, C, *ksize, *outsize)``, where ``col[n, c, k..., o...]`` is the input
element that kernel offset ``k`` sees at output position ``o``.

``im2col`` pads the input once (or not at all) and returns a strided view
of it: no element is copied until the caller reshapes the columns for a
matrix product, which it must do anyway.  ``col2im`` is its adjoint: it
loops over kernel offsets only (``prod(ksize)`` iterations), each adding a
strided slab of the columns into the padded image.
"""
import itertools

import numpy

from cpuframe import backend
from cpuframe.utils.conv import as_tuple, get_conv_outsize, kept


def _as_strided(xp, a, shape, strides):
    if xp is numpy:
        return numpy.lib.stride_tricks.as_strided(
            a, shape=shape, strides=strides, writeable=False)
    return xp.lib.stride_tricks.as_strided(a, shape=shape, strides=strides)


def _per_axis(value, n, name):
    if isinstance(value, (bool, numpy.bool_)):
        return (bool(value),) * n
    if hasattr(value, '__getitem__'):
        value = tuple(bool(v) for v in value)
        if len(value) != n:
            raise ValueError('{}: expected {} values, got {}'.format(
                name, n, len(value)))
        return value
    return (bool(value),) * n


def conv_outsize(size, ksize, stride, pad, dilate=1, cover_all=False):
    """Output sizes of an N-d convolution (a tuple, one per spatial axis).

    ``cover_all`` is a bool or one bool per axis.
    """
    nd = len(size)
    ksize = as_tuple(ksize, nd, 'ksize')
    stride = as_tuple(stride, nd, 'stride')
    pad = as_tuple(pad, nd, 'pad')
    dilate = as_tuple(dilate, nd, 'dilate')
    cover_all = _per_axis(cover_all, nd, 'cover_all')
    return tuple(get_conv_outsize(h, k, s, p, cover_all=c, d=d)
                 for h, k, s, p, d, c in zip(size, ksize, stride, pad,
                                             dilate, cover_all))


# im2col's and col2im's geometry per (shape, options): the same few layers
# call them on every step, and working it out is most of a small
# convolution's Python (``kept``).
_GEOMETRY = {}
_COL2IM_GEOMETRY = {}
_GEOMETRY_MAX = 256


def _im2col_geometry(shape, ksize, stride, pad, dilate, cover_all):
    """``(ksize, stride, dilate, outsize, padded shape or None, the slices
    of x in the padded image)`` for an image of ``shape``."""
    return kept(_GEOMETRY, (shape, ksize, stride, pad, dilate, cover_all),
                _work_out_geometry, _GEOMETRY_MAX)


def _work_out_geometry(shape, ksize, stride, pad, dilate, cover_all):
    nd = len(shape) - 2
    size = tuple(shape[2:])
    ksize = as_tuple(ksize, nd, 'ksize')
    stride = as_tuple(stride, nd, 'stride')
    pad = as_tuple(pad, nd, 'pad')
    dilate = as_tuple(dilate, nd, 'dilate')
    outsize = conv_outsize(size, ksize, stride, pad, dilate, cover_all)
    # The padded input must reach the last element of the last window.
    far = tuple(max(0, (k - 1) * d + s * (o - 1) + 1 - p - h)
                for h, k, s, p, d, o in zip(size, ksize, stride, pad,
                                            dilate, outsize))
    if not any(pad) and not any(far):
        return ksize, stride, dilate, outsize, None, None
    padded = tuple(shape[:2]) + tuple(
        h + p + f for h, p, f in zip(size, pad, far))
    inner = (slice(None), slice(None)) + tuple(
        slice(p, p + h) for p, h in zip(pad, size))
    return ksize, stride, dilate, outsize, padded, inner


def im2col(x, ksize, stride, pad, dilate=1, cover_all=False, pval=0):
    """Columns of ``x`` (``(N, C, *size)``) as a read-only strided view.

    Args:
        x: the image, ``(N, C, *size)``.
        ksize, stride, pad, dilate: ints or one int per spatial axis.
        cover_all: a bool or one bool per axis; with it the last window may
            run past the padded input (into extra ``pval`` padding) so that
            every input element is seen.
        pval: the value of padded elements (0 for convolution, ``-inf``
            for max pooling).

    Returns:
        An array of shape ``(N, C, *ksize, *outsize)`` viewing a padded
        copy of ``x`` (or ``x`` itself when no padding is needed).
    """
    xp = backend.get_array_module(x)
    ksize, stride, dilate, outsize, shape, inner = _im2col_geometry(
        x.shape, ksize, stride, pad, dilate, cover_all)
    if shape is not None:
        if pval == 0:
            img = xp.zeros(shape, dtype=x.dtype)
        else:
            img = xp.full(shape, pval, dtype=x.dtype)
        img[inner] = x
    else:
        img = x
    nd = len(ksize)
    st = img.strides
    strides = st[:2] + tuple(st[2 + i] * dilate[i] for i in range(nd)) + \
        tuple(st[2 + i] * stride[i] for i in range(nd))
    return _as_strided(xp, img, x.shape[:2] + ksize + outsize, strides)


def col2im(col, stride, pad, size, dilate=1):
    """The adjoint of ``im2col``: sum columns back into an image.

    Args:
        col: ``(N, C, *ksize, *outsize)`` (any strides).
        stride, pad, dilate: ints or one int per spatial axis.
        size: the spatial size of the image to produce.

    Returns:
        A C-contiguous array ``(N, C, *size)`` of ``col``'s dtype.  Column
        entries that fall into the padding are dropped.
    """
    xp = backend.get_array_module(col)
    padded, pieces, crop = _col2im_geometry(col.shape, stride, pad, size,
                                            dilate)
    img = xp.zeros(col.shape[:2] + padded, dtype=col.dtype)
    for window, offset in pieces:
        img[window] += col[offset]
    if crop is None:
        return img
    return xp.ascontiguousarray(img[crop])


def _col2im_geometry(shape, stride, pad, size, dilate):
    """``(padded spatial size, (image slices, column index) per kernel
    offset, the crop or None)`` for columns of ``shape``."""
    return kept(_COL2IM_GEOMETRY, (shape, stride, pad, size, dilate),
                _work_out_col2im_geometry, _GEOMETRY_MAX)


def _work_out_col2im_geometry(shape, stride, pad, size, dilate):
    nd = (len(shape) - 2) // 2
    ksize = tuple(shape[2:2 + nd])
    outsize = tuple(shape[2 + nd:])
    size = as_tuple(size, nd, 'size')
    stride = as_tuple(stride, nd, 'stride')
    pad = as_tuple(pad, nd, 'pad')
    dilate = as_tuple(dilate, nd, 'dilate')
    padded = tuple(max(h + 2 * p, (k - 1) * d + s * (o - 1) + 1)
                   for h, k, s, p, d, o in zip(size, ksize, stride, pad,
                                               dilate, outsize))
    head = (slice(None), slice(None))
    pieces = tuple(
        (head + tuple(slice(i * d, i * d + s * (o - 1) + 1, s)
                      for i, d, s, o in zip(offset, dilate, stride, outsize)),
         head + offset)
        for offset in itertools.product(*[range(k) for k in ksize]))
    crop = tuple(slice(p, p + h) for p, h in zip(pad, size))
    if all(c.start == 0 and c.stop == n for c, n in zip(crop, padded)):
        return padded, pieces, None
    return padded, pieces, head + crop
