"""Padded, strided windows over the spatial axes of ``(n, c, d_1, ..., d_N)``.

Every pooling op of this package is a loop over the ``prod(ksize)`` kernel
offsets, each offset one strided slice of a padded buffer: max pooling
takes the running maximum of the slices, average pooling adds them, and the
adjoint operations (unpooling, the gradients) add into the slices.  No loop
runs over pixels or batch elements.

The buffer is the input placed at offset ``pad`` along each spatial axis and
extended on the far side as far as the last window reaches; with
``cover_all`` that is up to ``stride - 1`` more than ``pad`` (Chainer's
convolution rule).
"""
import itertools

import numpy

from cpuframe import backend
from cpuframe.utils import conv, type_check


def spatial_ndim(x, label, least=1):
    """The number of spatial axes of ``x`` (``x.ndim - 2``), checked."""
    ndim = len(x.shape) - 2
    if ndim < least:
        raise type_check.InvalidType(
            'in_types[0].ndim >= {}'.format(least + 2),
            '{} < {}'.format(len(x.shape), least + 2),
            'Invalid operation is performed in: {} (Forward)\n\n'
            'Expect: x.ndim >= {} (n, c and at least {} spatial axis)\n'
            'Actual: x.ndim = {}'.format(label, least + 2, least,
                                         len(x.shape)))
    return ndim


def normalize_args(label, ndim, ksize, stride, pad):
    """``ksize``, ``stride`` (``None`` means ``ksize``) and ``pad`` as tuples."""
    ksize = conv.as_tuple(ksize, ndim, '{}: ksize'.format(label))
    stride = ksize if stride is None else conv.as_tuple(
        stride, ndim, '{}: stride'.format(label))
    pad = conv.as_tuple(pad, ndim, '{}: pad'.format(label))
    if any(k <= 0 for k in ksize):
        raise ValueError('{}: expected ksize > 0, got {}'.format(label, ksize))
    if any(s <= 0 for s in stride):
        raise ValueError('{}: expected stride > 0, got {}'.format(
            label, stride))
    if any(p < 0 for p in pad):
        raise ValueError('{}: expected pad >= 0, got {}'.format(label, pad))
    return ksize, stride, pad


def pooled_dims(dims, ksize, stride, pad, cover_all):
    """The output spatial shape of pooling ``dims``."""
    return tuple(conv.get_conv_outsize(d, k, s, p, cover_all)
                 for d, k, s, p in zip(dims, ksize, stride, pad))


def check_positive_output(in_dims, out_dims):
    """Raise ``InvalidType`` when some output length is not positive."""
    if any(o <= 0 for o in out_dims):
        raise type_check.InvalidType(
            'every output length > 0',
            'input spatial shape {} gives output spatial shape {}'.format(
                tuple(in_dims), tuple(out_dims)))


# Window origins kept per Windows up to this many (intp) elements: the
# small batches whose Python this saves, not a large batch's index array.
_KEPT_ORIGINS_MAX = 1 << 14

# One Windows per geometry, shared (``conv.kept``): the same few pooling
# layers run on every step.  A Windows is not changed after it is made (its
# offsets are worked out once, the same by any thread), so sharing it is
# safe.
_WINDOWS = {}


def windows(in_dims, ksize, stride, pad, out_dims):
    """The (shared) ``Windows`` of this geometry."""
    return conv.kept(_WINDOWS, (tuple(in_dims), tuple(ksize), tuple(stride),
                                tuple(pad), tuple(out_dims)), Windows)


class Windows:
    """The windows of one pooling geometry.

    ``in_dims`` is the spatial shape of the pooled (larger) array,
    ``out_dims`` that of the pooled result: window ``o`` covers the buffer
    positions ``o * stride + [0, ksize)`` and the input sits at ``pad``.
    """

    def __init__(self, in_dims, ksize, stride, pad, out_dims):
        self.in_dims = tuple(in_dims)
        self.ksize = tuple(ksize)
        self.stride = tuple(stride)
        self.pad = tuple(pad)
        self.out_dims = tuple(out_dims)
        self.ndim = len(self.in_dims)
        self.buf_dims = tuple(
            max((o - 1) * s + k, p + d) for o, s, k, p, d in zip(
                self.out_dims, self.stride, self.ksize, self.pad,
                self.in_dims))
        self.n_offsets = 1
        for k in self.ksize:
            self.n_offsets *= k
        self.overlapping = any(s < k for s, k in zip(self.stride, self.ksize))
        self._offsets = None
        self._flat_parts = None

    # -- the padded buffer ---------------------------------------------------
    def _inner(self):
        return tuple(slice(p, p + d) for p, d in zip(self.pad, self.in_dims))

    def is_unpadded(self):
        return self.buf_dims == self.in_dims

    def padded(self, x, value):
        """``x`` inside a buffer filled with ``value`` (``x`` if no padding)."""
        if self.is_unpadded():
            return x
        xp = backend.get_array_module(x)
        buf = xp.full(x.shape[:2] + self.buf_dims, value, dtype=x.dtype)
        buf[(Ellipsis,) + self._inner()] = x
        return buf

    def zeros_buffer(self, xp, lead, dtype):
        return xp.zeros(tuple(lead) + self.buf_dims, dtype=dtype)

    def crop(self, buf):
        """The input region of a buffer (a view)."""
        if self.is_unpadded():
            return buf
        return buf[(Ellipsis,) + self._inner()]

    def offsets(self):
        """``(flat kernel index, slices)`` for every kernel offset (a tuple,
        worked out on first use)."""
        offsets = self._offsets
        if offsets is None:
            offsets = self._offsets = tuple(
                (kk, (Ellipsis,) + tuple(
                    slice(kd, kd + s * (o - 1) + 1, s)
                    for kd, s, o in zip(k, self.stride, self.out_dims)))
                for kk, k in enumerate(itertools.product(
                    *[range(k) for k in self.ksize])))
        return offsets

    # -- pooling (in -> out) -------------------------------------------------
    def window_max(self, buf):
        """Maximum over each window of a (``-inf``-)padded buffer."""
        xp = backend.get_array_module(buf)
        y = None
        for _, sl in self.offsets():
            if y is None:
                y = buf[sl].copy()
            else:
                xp.maximum(y, buf[sl], out=y)
        return y

    def window_argmax(self, buf, y):
        """The first position of ``y`` in each window (flat kernel index)."""
        xp = backend.get_array_module(buf)
        dtype = numpy.min_scalar_type(-self.n_offsets)
        idx = xp.zeros(y.shape, dtype=dtype)
        # Last offset first, so that the first maximum wins a tie.  The
        # arithmetic update on a small integer type is several times faster
        # than a masked copy.
        for kk, sl in reversed(self.offsets()):
            hit = (buf[sl] == y).view(numpy.int8).astype(dtype, copy=False)
            idx -= (idx - dtype.type(kk)) * hit
        return idx

    def window_sum(self, buf):
        """Sum over each window of a zero-padded buffer."""
        y = None
        for _, sl in self.offsets():
            if y is None:
                y = buf[sl].copy()
            else:
                y += buf[sl]
        return y

    # -- the adjoint (out -> in) ---------------------------------------------
    def scatter_sum(self, y):
        """Add every ``y[o]`` to all positions of its window; crop the buffer.

        The adjoint of ``window_sum(padded(x, 0))``.
        """
        xp = backend.get_array_module(y)
        buf = self.zeros_buffer(xp, y.shape[:2], y.dtype)
        for _, sl in self.offsets():
            buf[sl] += y
        return xp.ascontiguousarray(self.crop(buf))

    # -- one position per window (max pooling, upsampling) -------------------
    def flat_indices(self, idx):
        """Positions in the flattened buffer of the kernel offsets ``idx``."""
        xp = backend.get_array_module(idx)
        n, c = idx.shape[:2]
        # Window origins and kernel offsets depend on the geometry and
        # (n, c) only: the last batch shape's are kept where small
        # (read-only, one tuple, so a thread sees a whole one or works them
        # out itself).
        kept = self._flat_parts
        if kept is None or kept[0] != (n, c, xp):
            kept = ((n, c, xp),) + self._work_out_flat_parts(xp, n, c)
            if kept[1].size <= _KEPT_ORIGINS_MAX:
                # (a shared Windows lives as long as the process: large
                # batches' origins are worked out per call instead)
                self._flat_parts = kept
        _, origins, kernel = kept
        return origins + kernel[idx]

    def _work_out_flat_parts(self, xp, n, c):
        nd = self.ndim
        buf_strides = [1] * nd
        for d in range(nd - 2, -1, -1):
            buf_strides[d] = buf_strides[d + 1] * self.buf_dims[d + 1]
        plane = buf_strides[0] * self.buf_dims[0]
        flat = (xp.arange(n * c, dtype=numpy.intp) * plane).reshape(
            (n, c) + (1,) * nd)
        for d in range(nd):
            shape = [1] * nd
            shape[d] = self.out_dims[d]
            flat = flat + (xp.arange(self.out_dims[d], dtype=numpy.intp) *
                           (self.stride[d] * buf_strides[d])).reshape(shape)
        kernel = xp.zeros(self.ksize, dtype=numpy.intp)
        for d in range(nd):
            shape = [1] * nd
            shape[d] = self.ksize[d]
            kernel = kernel + (xp.arange(self.ksize[d], dtype=numpy.intp) *
                               buf_strides[d]).reshape(shape)
        kernel = kernel.ravel()
        if xp is numpy:
            flat.flags.writeable = False
            kernel.flags.writeable = False
        return flat, kernel

    def scatter_at(self, y, flat):
        """Add ``y[o]`` at buffer position ``flat[o]``; crop the buffer."""
        xp = backend.get_array_module(y)
        buf = self.zeros_buffer(xp, y.shape[:2], y.dtype)
        if self.overlapping:
            from cpuframe.functions.array._indexing import add_at
            add_at(buf.reshape(-1), flat.reshape(-1), y.reshape(-1))
        else:
            # Disjoint windows: every position is written at most once.
            buf.reshape(-1)[flat.reshape(-1)] = y.reshape(-1)
        return xp.ascontiguousarray(self.crop(buf))

    def gather_at(self, x, flat):
        """``x``'s zero-padded buffer read at ``flat`` (``out``-shaped)."""
        xp = backend.get_array_module(x)
        buf = xp.ascontiguousarray(self.padded(x, 0))
        return buf.reshape(-1)[flat]


def check_fixed_ndim(x, ndim, name):
    """Raise ``ValueError`` unless ``x`` has exactly ``ndim`` spatial axes."""
    if len(x.shape) - 2 != ndim:
        raise ValueError(
            '{}: expected an input with {} spatial axes (x.ndim == {}), got '
            'x.ndim = {}'.format(name, ndim, ndim + 2, len(x.shape)))
