"""N-dimensional spatial average pooling."""
import numpy

from cpuframe import backend
from cpuframe.backends import intel64
from cpuframe.function_node import FunctionNode
from cpuframe.functions.pooling import _pooling_utils
from cpuframe.utils import type_check


class AveragePoolingNDGrad(FunctionNode):
    """Spread each output gradient evenly over its window.

    The adjoint of average pooling; its own gradient is average pooling
    again, so any order of differentiation is available.
    """

    bf16_inputs = (0,)
    bf16_outputs = (0,)

    def __init__(self, apool):
        self.apool = apool

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('gy',))
        type_check.expect(
            in_types[0].dtype.kind == 'f',
            in_types[0].shape == self.apool._out_shape)

    def forward(self, inputs):
        gy, = inputs
        apool = self.apool
        return apool._windows.scatter_sum(gy / apool._divisor(gy.dtype)),

    def intel64_on_device(self, inputs):
        # The gradient of a pooling on the device stays there.
        return self.apool._intel64_on_device or \
            super().intel64_on_device(inputs)

    def intel64_supports(self, inputs):
        return self.apool._intel64_ctx is not None and \
            intel64.all_float32(inputs)

    def forward_intel64(self, inputs):
        return intel64.native().pooling_backward(
            inputs[0], self.apool._intel64_ctx),

    def backward(self, indexes, grad_outputs):
        return self.apool._like().apply(grad_outputs)


class AveragePoolingND(FunctionNode):
    """Average pooling over the last ``ndim`` axes of ``(n, c, d_1, ..., d_N)``.

    The windows never run past the padded input (no ``cover_all``).  With
    ``pad_value=0`` the padding counts in every average (the divisor is
    ``prod(ksize)``); with ``pad_value=None`` each window is divided by the
    number of input elements it covers.
    """

    bf16_inputs = (0,)
    bf16_outputs = (0,)

    def __init__(self, ndim, ksize, stride=None, pad=0, pad_value=0):
        if ndim <= 0:
            raise ValueError('{}: pooling needs at least one spatial axis, '
                             'got ndim={}'.format(self.label, ndim))
        if pad_value is not None and pad_value != 0:
            raise ValueError('{}: expected pad_value 0 or None, got {!r}'
                             .format(self.label, pad_value))
        self.ndim = ndim
        self.ksize, self.stride, self.pad = _pooling_utils.normalize_args(
            self.label, ndim, ksize, stride, pad)
        self.pad_value = pad_value
        self._intel64_ctx = None
        self._intel64_on_device = False

    def _like(self):
        """A fresh node with the same options (the gradient of the grad)."""
        return AveragePoolingND(self.ndim, self.ksize, self.stride, self.pad,
                                self.pad_value)

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('ndim', 'ksize', 'stride', 'pad')

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        x_type, = in_types
        type_check.expect(x_type.dtype.kind == 'f',
                          x_type.ndim == 2 + self.ndim)
        dims = type_check.eval(x_type.shape)[2:]
        _pooling_utils.check_positive_output(dims, _pooling_utils.pooled_dims(
            dims, self.ksize, self.stride, self.pad, False))

    def _divisor(self, dtype):
        """The number each window sum is divided by (scalar or array)."""
        if self.pad_value is not None:
            return dtype.type(self._windows.n_offsets)
        if self._count is None:
            xp = self._xp
            count = xp.ones((), dtype=dtype)
            w = self._windows
            for d in range(w.ndim):
                start = numpy.arange(w.out_dims[d]) * w.stride[d]
                stop = numpy.minimum(start + w.ksize[d],
                                     w.pad[d] + w.in_dims[d])
                length = numpy.maximum(
                    stop - numpy.maximum(start, w.pad[d]), 0)
                shape = [1] * w.ndim
                shape[d] = w.out_dims[d]
                count = count * xp.asarray(length.reshape(shape), dtype=dtype)
            self._count = count
        return self._count

    def forward(self, inputs):
        x, = inputs
        dims = x.shape[2:]
        out_dims = _pooling_utils.pooled_dims(
            dims, self.ksize, self.stride, self.pad, False)
        self._windows = _pooling_utils.windows(
            dims, self.ksize, self.stride, self.pad, out_dims)
        self._xp = backend.get_array_module(x)
        self._count = None
        self._in_shape = x.shape
        self._out_shape = x.shape[:2] + out_dims
        y = self._windows.window_sum(self._windows.padded(x, 0))
        y /= self._divisor(x.dtype)
        return y,

    def _set_geometry(self, x):
        dims = x.shape[2:]
        out_dims = _pooling_utils.pooled_dims(
            dims, self.ksize, self.stride, self.pad, False)
        self._windows = _pooling_utils.windows(
            dims, self.ksize, self.stride, self.pad, out_dims)
        self._xp = numpy
        self._count = None
        self._in_shape = x.shape
        self._out_shape = x.shape[:2] + out_dims

    def intel64_supports(self, inputs):
        # The windows stay inside the padded input, so oneDNN's
        # include_padding (divide by prod(ksize)) and exclude_padding
        # (divide by the input elements covered) are exactly pad_value 0
        # and None, as long as no window lies wholly in the padding (0 here,
        # 0 / 0 with pad_value=None).
        x, = inputs
        return 1 <= self.ndim <= 3 and intel64.all_float32(inputs) and \
            x.size > 0 and all(p < k for p, k in zip(self.pad, self.ksize))

    intel64_profitable = intel64.size_rule('average_pooling', 0)

    def forward_intel64(self, inputs):
        x, = inputs
        self._set_geometry(x)
        mode = 'avg_include_padding' if self.pad_value is not None else \
            'avg_exclude_padding'
        y, self._intel64_ctx = intel64.native().pooling_forward(
            x, self.ksize, self.stride, self.pad, self.pad, mode)
        self._intel64_on_device = intel64.any_native(inputs)
        return y,

    def backward(self, indexes, grad_outputs):
        return AveragePoolingNDGrad(self).apply(grad_outputs)

    def backward_arrays(self, indexes, grad_outputs):
        return AveragePoolingNDGrad(self)._compute(grad_outputs)


def average_pooling_nd(x, ksize, stride=None, pad=0, pad_value=0):
    """N-dimensional spatial average pooling.

    The N-dimensional form of :func:`average_pooling_2d`: for an input of
    shape ``(n, c, d_1, ..., d_N)`` each output element is the mean of an
    input window of size ``ksize``.  Windows stay inside the padded input
    (``cover_all`` is not supported, as in Chainer).

    Args:
        x (Variable or array): Input of shape ``(n, c, d_1, ..., d_N)``.
        ksize (int or tuple of ints): Window size.
        stride (int, tuple of ints or None): Stride; ``None`` means ``ksize``.
        pad (int or tuple of ints): Padding on both sides of each axis.
        pad_value (0 or None): With 0, padded elements count as zeros and
            every window is divided by ``prod(ksize)`` (averages near the
            border are biased towards zero).  With None, padded elements
            are left out and each window is divided by the number of input
            elements it covers.

    Returns:
        Variable of shape ``(n, c, o_1, ..., o_N)``,
        ``o = (d + 2 * pad - ksize) // stride + 1``.

    >>> x = np.ones((1, 1, 3), np.float32)
    >>> F.average_pooling_nd(x, 2, 1, 1).array
    array([[[0.5, 1. , 1. , 0.5]]], dtype=float32)
    >>> F.average_pooling_nd(x, 2, 1, 1, pad_value=None).array
    array([[[1., 1., 1., 1.]]], dtype=float32)
    """
    ndim = _pooling_utils.spatial_ndim(x, 'AveragePoolingND')
    return AveragePoolingND(ndim, ksize, stride, pad, pad_value).apply(
        (x,))[0]


def average_pooling_1d(x, ksize, stride=None, pad=0, pad_value=0):
    """1-dimensional average pooling: :func:`average_pooling_nd` on ``(n, c, w)``."""
    _pooling_utils.check_fixed_ndim(x, 1, 'average_pooling_1d')
    return average_pooling_nd(x, ksize, stride, pad, pad_value)


def average_pooling_3d(x, ksize, stride=None, pad=0, pad_value=0):
    """3-dimensional average pooling: :func:`average_pooling_nd` on 5-D input."""
    _pooling_utils.check_fixed_ndim(x, 3, 'average_pooling_3d')
    return average_pooling_nd(x, ksize, stride, pad, pad_value)
