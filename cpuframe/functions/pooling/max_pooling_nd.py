"""N-dimensional spatial max pooling."""
import numpy

from cpuframe import _bf16
from cpuframe.backends import intel64
from cpuframe.configuration import config
from cpuframe.function_node import FunctionNode
from cpuframe.functions.pooling import _pooling_utils
from cpuframe.utils import type_check


def _windows_see_input(dims, ksize, stride, pad, out_dims):
    """True when every window covers at least one input element.

    The first window starts at ``-pad``, the last at
    ``(out - 1) * stride - pad``.
    """
    return all(p < k and (o - 1) * s - p < d for d, k, s, p, o in zip(
        dims, ksize, stride, pad, out_dims))


def _onednn_pad_r(dims, ksize, stride, pad, out_dims):
    """oneDNN's right padding that gives ``out_dims`` (cover_all included).

    oneDNN's output length is ``(d + pad_l + pad_r - k) // stride + 1``: the
    plain size needs ``pad_r = pad``; cover_all's last window reaches up to
    ``stride - 1`` further.
    """
    return [max(p, (o - 1) * s + k - d - p) for d, k, s, p, o in zip(
        dims, ksize, stride, pad, out_dims)]


class MaxPoolingNDGrad(FunctionNode):
    """Route each output gradient to the maximum of its window.

    Linear in ``gy``; its gradient gathers with the same positions
    (``MaxPoolingNDWithIndexes``), so max pooling is twice differentiable.
    """

    bf16_inputs = (0,)
    bf16_outputs = (0,)

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

    def intel64_on_device(self, inputs):
        # The gradient of a pooling on the device stays there.
        return self.mpool._intel64_on_device or \
            super().intel64_on_device(inputs)

    def intel64_supports(self, inputs):
        # Only after a oneDNN forward that kept its workspace (the maxima).
        ctx = self.mpool._intel64_ctx
        return ctx is not None and ctx.has_workspace and \
            intel64.all_float32(inputs)

    def forward_intel64(self, inputs):
        return intel64.native().pooling_backward(
            inputs[0], self.mpool._intel64_ctx),

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

    # (its backward_arrays computes gradient nodes of constant settings:
    # @static_graph may replay those directly)
    _static_backward = True

    bf16_inputs = (0,)
    bf16_outputs = (0,)

    # (inputs, outputs) backward keeps, whichever route runs
    retained_for_backward = ((0,), (0,))

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
        self._intel64_ctx = None
        self._intel64_on_device = False

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('ndim', 'ksize', 'stride', 'pad', 'cover_all')

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
        self._windows = _pooling_utils.windows(
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

    def intel64_supports(self, inputs):
        x, = inputs
        if self.return_indices or not 1 <= self.ndim <= 3 or \
                not intel64.all_float32(inputs) or x.size == 0:
            return False
        dims = x.shape[2:]
        out_dims = _pooling_utils.pooled_dims(
            dims, self.ksize, self.stride, self.pad, self.cover_all)
        # A window lying wholly in the padding gives -inf here but oneDNN's
        # lowest float there: route only when every window sees the input.
        # oneDNN's maximum skips NaN where NumPy's keeps it, and starts from
        # the lowest float (a window of -inf gives that, not -inf): an input
        # with a NaN or a -inf takes the NumPy path.
        return _windows_see_input(
            dims, self.ksize, self.stride, self.pad, out_dims) and \
            intel64.all_within(x, high=numpy.inf)

    intel64_profitable = intel64.size_rule('max_pooling', 0)

    def forward_intel64(self, inputs):
        x, = inputs
        dims = x.shape[2:]
        out_dims = _pooling_utils.pooled_dims(
            dims, self.ksize, self.stride, self.pad, self.cover_all)
        self._windows = _pooling_utils.windows(
            dims, self.ksize, self.stride, self.pad, out_dims)
        self._in_shape = x.shape
        self._out_shape = x.shape[:2] + out_dims
        # The workspace (oneDNN's record of the maxima) only when a graph
        # may be built; x and y are kept as on the NumPy path, for the
        # second-order gradient and a NumPy backward.
        y, self._intel64_ctx = intel64.native().pooling_forward(
            x, self.ksize, self.stride, self.pad,
            _onednn_pad_r(dims, self.ksize, self.stride, self.pad, out_dims),
            'max', bool(config.enable_backprop))
        self._intel64_on_device = intel64.any_native(inputs)
        return y,

    def _flat_indexes(self):
        """Flat positions of the maxima in the padded input (cached)."""
        if self._flat is None:
            if self._idx is None:
                x, = self.get_retained_inputs()
                y, = self.get_retained_outputs()
                x, y = intel64.to_numpy(x.array), intel64.to_numpy(y.array)
                if self._bf16_forward:
                    # The maxima were taken over x rounded to bf16 (ties
                    # included); the kept x is the producer's, maybe not.
                    x = _bf16.round_array(x)
                buf = self._windows.padded(x, -numpy.inf)
                self._idx = self._windows.window_argmax(buf, y)
            self._flat = self._windows.flat_indices(self._idx)
            self._idx = None
        return self._flat

    def backward(self, indexes, grad_outputs):
        return self._grad_class(self).apply(grad_outputs)

    def backward_arrays(self, indexes, grad_outputs):
        return self._grad_class(self)._compute(grad_outputs)


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


def __getattr__(name):
    # Chainer's max_pooling_nd module also offers max_pooling_2d; it is
    # defined in max_pooling_2d (which imports this module), so on demand.
    if name == 'max_pooling_2d':
        from cpuframe.functions.pooling.max_pooling_2d import max_pooling_2d
        return max_pooling_2d
    raise AttributeError(
        'module {!r} has no attribute {!r}'.format(__name__, name))
