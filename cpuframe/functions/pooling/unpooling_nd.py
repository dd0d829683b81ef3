"""N-dimensional unpooling: copy each element over a window (no overlap rule)."""
from cpuframe.function_node import FunctionNode
from cpuframe.functions.pooling import _pooling_utils
from cpuframe.utils import conv, type_check


class UnpoolingNDGrad(FunctionNode):
    """Sum of the output gradient over each window (the adjoint of unpooling)."""

    def __init__(self, unpool):
        self.unpool = unpool

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('gy',))
        type_check.expect(
            in_types[0].dtype.kind == 'f',
            in_types[0].shape == self.unpool._out_shape)

    def forward(self, inputs):
        gy, = inputs
        w = self.unpool._windows
        return w.window_sum(w.padded(gy, 0)),

    def backward(self, indexes, grad_outputs):
        return self.unpool._like().apply(grad_outputs)


class UnpoolingND(FunctionNode):
    """Unpooling over the last ``ndim`` axes of ``(n, c, d_1, ..., d_N)``.

    The inverse geometry of pooling with the same ``ksize``, ``stride`` and
    ``pad``: input element ``o`` is added to the ``ksize`` window starting
    at ``o * stride - pad`` of the output (overlaps add up).
    """

    _grad_class = UnpoolingNDGrad

    def __init__(self, ndim, ksize, stride=None, pad=0, outsize=None,
                 cover_all=True):
        if ndim <= 0:
            raise ValueError('{}: unpooling needs at least one spatial axis, '
                             'got ndim={}'.format(self.label, ndim))
        self.ndim = ndim
        self.ksize, self.stride, self.pad = _pooling_utils.normalize_args(
            self.label, ndim, ksize, stride, pad)
        self.outsize = None if outsize is None else conv.as_tuple(
            outsize, ndim, '{}: outsize'.format(self.label))
        self.cover_all = cover_all

    def _like(self):
        return type(self)(self.ndim, self.ksize, self.stride, self.pad,
                          self._windows.in_dims, self.cover_all)

    def _out_dims(self, dims):
        if self.outsize is not None:
            return self.outsize
        return tuple(conv.get_deconv_outsize(d, k, s, p, self.cover_all)
                     for d, k, s, p in zip(dims, self.ksize, self.stride,
                                           self.pad))

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        x_type, = in_types
        type_check.expect(x_type.dtype.kind == 'f',
                          x_type.ndim == 2 + self.ndim)
        dims = type_check.eval(x_type.shape)[2:]
        if self.outsize is not None:
            expected = _pooling_utils.pooled_dims(
                self.outsize, self.ksize, self.stride, self.pad,
                self.cover_all)
            if tuple(dims) != expected:
                raise type_check.InvalidType(
                    'x.shape[2:] == {} (the pooled size of outsize={})'.format(
                        expected, self.outsize),
                    'x.shape[2:] = {}'.format(tuple(dims)))
        out_dims = self._out_dims(dims)
        if any(o <= 0 for o in out_dims):
            raise type_check.InvalidType(
                'every output length > 0',
                'input spatial shape {} gives output spatial shape {}'.format(
                    tuple(dims), out_dims))

    def forward(self, inputs):
        x, = inputs
        dims = x.shape[2:]
        out_dims = self._out_dims(dims)
        self._windows = _pooling_utils.windows(
            out_dims, self.ksize, self.stride, self.pad, dims)
        self._out_shape = x.shape[:2] + out_dims
        return self._windows.scatter_sum(x),

    def backward(self, indexes, grad_outputs):
        return self._grad_class(self).apply(grad_outputs)


def unpooling_nd(x, ksize, stride=None, pad=0, outsize=None, cover_all=True):
    """N-dimensional unpooling, the N-dimensional form of :func:`unpooling_2d`.

    Each input element of ``(n, c, d_1, ..., d_N)`` is copied over a
    ``ksize`` window of the output, windows placed ``stride`` apart and
    shifted by ``-pad``; where windows overlap the copies add up.

    Args:
        x (Variable or array): Input of shape ``(n, c, d_1, ..., d_N)``.
        ksize (int or tuple of ints): Window size.
        stride (int, tuple of ints or None): Stride; ``None`` means ``ksize``.
        pad (int or tuple of ints): Padding removed from both sides.
        outsize (None or tuple of ints): Output spatial shape; by default
            the size whose pooling gives ``d``:
            ``s * (d - 1) + k - 2 * p`` minus ``s - 1`` with ``cover_all``.
        cover_all (bool): Whether the pooling this inverts used
            ``cover_all`` (it decides the default ``outsize``).

    Returns:
        Variable of shape ``(n, c) + outsize``.

    >>> x = np.array([[[1., 2.]]], np.float32)
    >>> F.unpooling_nd(x, 2, cover_all=False).array
    array([[[1., 1., 2., 2.]]], dtype=float32)
    """
    ndim = _pooling_utils.spatial_ndim(x, 'UnpoolingND')
    return UnpoolingND(ndim, ksize, stride, pad, outsize, cover_all).apply(
        (x,))[0]


def unpooling_1d(x, ksize, stride=None, pad=0, outsize=None, cover_all=True):
    """1-dimensional unpooling: :func:`unpooling_nd` on ``(n, c, w)``."""
    _pooling_utils.check_fixed_ndim(x, 1, 'unpooling_1d')
    return unpooling_nd(x, ksize, stride, pad, outsize, cover_all)


def unpooling_3d(x, ksize, stride=None, pad=0, outsize=None, cover_all=True):
    """3-dimensional unpooling: :func:`unpooling_nd` on ``(n, c, d, h, w)``."""
    _pooling_utils.check_fixed_ndim(x, 3, 'unpooling_3d')
    return unpooling_nd(x, ksize, stride, pad, outsize, cover_all)
