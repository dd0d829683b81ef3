"""Upsampling with the maxima positions of a max pooling."""
from cpuframe import backend
from cpuframe.function_node import FunctionNode
from cpuframe.functions.pooling import _pooling_utils
from cpuframe.utils import conv, type_check
from cpuframe.variable import Variable


class Upsampling2DGrad(FunctionNode):
    """Read the output gradient at the position each input was placed at."""

    def __init__(self, upsample):
        self.upsample = upsample

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('gy',))
        type_check.expect(
            in_types[0].dtype.kind == 'f',
            in_types[0].shape == self.upsample._out_shape)

    def forward(self, inputs):
        gy, = inputs
        up = self.upsample
        return up._windows.gather_at(gy, up._flat),

    def backward(self, indexes, grad_outputs):
        return self.upsample._like().apply(grad_outputs)


class Upsampling2D(FunctionNode):
    """Place each pixel of ``(n, c, h, w)`` at one position of its window."""

    def __init__(self, indexes, ksize, stride=None, pad=0, outsize=None,
                 cover_all=True):
        self.ksize, self.stride, self.pad = _pooling_utils.normalize_args(
            self.label, 2, ksize, stride, pad)
        self.outsize = None if outsize is None else conv.pair(
            outsize, '{}: outsize'.format(self.label))
        self.cover_all = cover_all
        if isinstance(indexes, Variable):
            indexes = indexes.array
        if not backend.is_array(indexes) or indexes.dtype.kind not in 'iu':
            raise TypeError(
                '{}: expected indexes as an integer array (from max_pooling_2d '
                'with return_indices=True), got {}'.format(
                    self.label, getattr(indexes, 'dtype', type(indexes))))
        n_offsets = self.ksize[0] * self.ksize[1]
        if indexes.size and (int(indexes.min()) < 0 or
                             int(indexes.max()) >= n_offsets):
            raise ValueError(
                '{}: expected indexes in [0, {}) (positions in a {} window), '
                'got values in [{}, {}]'.format(
                    self.label, n_offsets, self.ksize, int(indexes.min()),
                    int(indexes.max())))
        self.indexes = indexes

    def _like(self):
        return Upsampling2D(self.indexes, self.ksize, self.stride, self.pad,
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
        type_check.expect(x_type.dtype.kind == 'f', x_type.ndim == 4,
                          x_type.shape == self.indexes.shape)
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
        self._flat = self._windows.flat_indices(self.indexes)
        return self._windows.scatter_at(x, self._flat),

    def backward(self, indexes, grad_outputs):
        return Upsampling2DGrad(self).apply(grad_outputs)


def upsampling_2d(x, indexes, ksize, stride=None, pad=0, outsize=None,
                  cover_all=True):
    """Upsampling that undoes a max pooling's selection.

    Each input pixel ``x[n, c, i, j]`` is written to the position
    ``indexes[n, c, i, j]`` (a flat index ``p * kw + q``) of the window
    ``(i * sy - ph + p, j * sx - pw + q)`` of an output of zeros, as
    returned by ``max_pooling_2d(..., return_indices=True)`` with the same
    ``ksize``, ``stride``, ``pad`` and ``cover_all``.  Values landing on
    the same output pixel (overlapping windows) add up; positions in the
    padding are dropped.

    Args:
        x (Variable or array): Input of shape ``(n, c, h, w)``.
        indexes (array): Integer array of the shape of ``x``, values in
            ``[0, kh * kw)``.
        ksize (int or pair of ints): Window size.
        stride (int, pair of ints or None): Stride; ``None`` means ``ksize``.
        pad (int or pair of ints): Padding of the pooling.
        outsize (None or pair of ints): Output ``(out_h, out_w)``; by
            default as in :func:`unpooling_2d`.  Pass the pooled input's
            size to restore it exactly.
        cover_all (bool): The ``cover_all`` of the pooling.

    Returns:
        Variable of shape ``(n, c, out_h, out_w)``.

    >>> x = np.array([[[[1., 3.], [2., 4.]]]], np.float32)
    >>> y, idx = F.max_pooling_2d(x, (1, 2), return_indices=True)
    >>> F.upsampling_2d(y, idx, (1, 2), outsize=(2, 2)).array
    array([[[[0., 3.],
             [0., 4.]]]], dtype=float32)
    """
    return Upsampling2D(indexes, ksize, stride, pad, outsize, cover_all).apply(
        (x,))[0]
