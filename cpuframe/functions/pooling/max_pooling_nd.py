"""N-dimensional spatial max pooling."""
import numpy

from cpuframe.function_node import FunctionNode
from cpuframe.functions.pooling import _pooling_utils
from cpuframe.utils import type_check


class MaxPoolingNDGrad(FunctionNode):
    """Route each output gradient to the maximum of its window.

    Linear in ``gy``; its gradient gathers with the same positions
    (``MaxPoolingNDWithIndexes``), so max pooling is twice differentiable.
    """

    def __init__(self, mpool):
        self.mpool = mpool

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('gy',))
        type_check.expect(
            in_types[0].dtype.kind == 'f',
            in_types[0].shape == self.mpool._out_shape)

    def forward(self, inputs):
        gy, = inputs
        mpool = self.mpool
        return mpool._windows.scatter_at(gy, mpool._flat_indexes()),

    def backward(self, indexes, grad_outputs):
        return self.mpool._with_indexes_class(self.mpool).apply(grad_outputs)


class MaxPoolingNDWithIndexes(FunctionNode):
    """Read each window of ``x`` at the position max pooling chose."""

    def __init__(self, mpool):
        self.mpool = mpool

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        type_check.expect(
            in_types[0].dtype.kind == 'f',
            in_types[0].shape == self.mpool._in_shape)

    def forward(self, inputs):
        x, = inputs
        mpool = self.mpool
        return mpool._windows.gather_at(x, mpool._flat_indexes()),

    def backward(self, indexes, grad_outputs):
        return self.mpool._grad_class(self.mpool).apply(grad_outputs)


class MaxPoolingND(FunctionNode):
    """Max pooling over the last ``ndim`` axes of ``(n, c, d_1, ..., d_N)``.

    Forward takes a running maximum over the ``prod(ksize)`` strided slices
    of the ``-inf``-padded input.  The position of each maximum (the first
    one on ties, a flat index into the window) is found only when needed:
    at forward with ``return_indices``, otherwise at backward from the
    retained input and output, so inference pays for the maximum alone.
    """

    _grad_class = MaxPoolingNDGrad
    _with_indexes_class = MaxPoolingNDWithIndexes

    def __init__(self, ndim, ksize, stride=None, pad=0, cover_all=True,
                 return_indices=False):
        if ndim <= 0:
            raise ValueError('{}: pooling needs at least one spatial axis, '
                             'got ndim={}'.format(self.label, ndim))
        self.ndim = ndim
        self.ksize, self.stride, self.pad = _pooling_utils.normalize_args(
            self.label, ndim, ksize, stride, pad)
        self.cover_all = cover_all
        self.return_indices = return_indices
        self.indexes = None
        self._idx = None
        self._flat = None

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        x_type, = in_types
        type_check.expect(x_type.dtype.kind == 'f',
                          x_type.ndim == 2 + self.ndim)
        dims = type_check.eval(x_type.shape)[2:]
        _pooling_utils.check_positive_output(dims, _pooling_utils.pooled_dims(
            dims, self.ksize, self.stride, self.pad, self.cover_all))

    def forward(self, inputs):
        x, = inputs
        dims = x.shape[2:]
        out_dims = _pooling_utils.pooled_dims(
            dims, self.ksize, self.stride, self.pad, self.cover_all)
        self._windows = _pooling_utils.Windows(
            dims, self.ksize, self.stride, self.pad, out_dims)
        self._in_shape = x.shape
        self._out_shape = x.shape[:2] + out_dims
        buf = self._windows.padded(x, -numpy.inf)
        y = self._windows.window_max(buf)
        if self.return_indices:
            self._idx = self._windows.window_argmax(buf, y)
            self.indexes = self._idx.astype(numpy.int32)
        else:
            self.retain_inputs((0,))
            self.retain_outputs((0,))
        return y,

    def _flat_indexes(self):
        """Flat positions of the maxima in the padded input (cached)."""
        if self._flat is None:
            if self._idx is None:
                x, = self.get_retained_inputs()
                y, = self.get_retained_outputs()
                buf = self._windows.padded(x.array, -numpy.inf)
                self._idx = self._windows.window_argmax(buf, y.array)
            self._flat = self._windows.flat_indices(self._idx)
            self._idx = None
        return self._flat

    def backward(self, indexes, grad_outputs):
        return self._grad_class(self).apply(grad_outputs)


def max_pooling_nd(x, ksize, stride=None, pad=0, cover_all=True,
                   return_indices=False):
    """N-dimensional spatial max pooling.

    The N-dimensional form of :func:`max_pooling_2d`: for an input of shape
    ``(n, c, d_1, ..., d_N)``, each output element is the maximum of an
    input window of size ``ksize``; padding counts as ``-inf``::

        y[n, c, o_1, ..., o_N] = max over k of x[n, c, o * stride + k - pad]

    Args:
        x (Variable or array): Input of shape ``(n, c, d_1, ..., d_N)``.
        ksize (int or tuple of ints): Window size.
        stride (int, tuple of ints or None): Stride; ``None`` means ``ksize``.
        pad (int or tuple of ints): Padding on both sides of each axis.
        cover_all (bool): If True, the output is long enough that every
            input element is in some window (the last window may reach
            ``stride - 1`` past the padding).
        return_indices (bool): If True, also return the position of each
            maximum inside its window as a flat index into ``ksize`` (an
            int32 array of the output's shape).

    Returns:
        Variable of shape ``(n, c, o_1, ..., o_N)`` with
        ``o = (d + 2 * pad - ksize [+ stride - 1 if cover_all]) // stride + 1``,
        or ``(y, indexes)`` with ``return_indices``.

    >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 16)
    >>> F.max_pooling_nd(x, 4).array
    array([[[ 3.,  7., 11., 15.]]], dtype=float32)
    """
    ndim = _pooling_utils.spatial_ndim(x, 'MaxPoolingND')
    func = MaxPoolingND(ndim, ksize, stride, pad, cover_all, return_indices)
    y = func.apply((x,))[0]
    if return_indices:
        return y, func.indexes
    return y


def max_pooling_1d(x, ksize, stride=None, pad=0, cover_all=True,
                   return_indices=False):
    """1-dimensional max pooling: :func:`max_pooling_nd` on ``(n, c, w)``."""
    _pooling_utils.check_fixed_ndim(x, 1, 'max_pooling_1d')
    return max_pooling_nd(x, ksize, stride, pad, cover_all, return_indices)


def max_pooling_3d(x, ksize, stride=None, pad=0, cover_all=True,
                   return_indices=False):
    """3-dimensional max pooling: :func:`max_pooling_nd` on ``(n, c, d, h, w)``."""
    _pooling_utils.check_fixed_ndim(x, 3, 'max_pooling_3d')
    return max_pooling_nd(x, ksize, stride, pad, cover_all, return_indices)
