"""N-dimensional convolution (1-D, 2-D, 3-D, ...), Chainer's ``convolution_nd``.

The forward pass is im2col followed by one batched matrix product (one
per group).  Its gradient with respect to the input is a deconvolution of
the output gradient with the same filter, and deconvolution's gradient is
this convolution: the two ops are written as a pair, so gradients of any
order are again convolutions.  The gradient with respect to the filter is
``ConvolutionNDGradW``, whose own gradients are again the pair.
"""
import numpy

from cpuframe import backend
from cpuframe.backends import intel64
from cpuframe.function_node import FunctionNode
from cpuframe.functions.connection._im2col import _per_axis, conv_outsize, im2col
from cpuframe.utils import type_check
from cpuframe.utils.conv import as_tuple


def _conv_args(ndim, stride, pad, dilate, groups, where):
    """Validate and normalize the options shared by (de)convolutions."""
    stride = as_tuple(stride, ndim, where + ': stride')
    pad = as_tuple(pad, ndim, where + ': pad')
    dilate = as_tuple(dilate, ndim, where + ': dilate')
    if any(s < 1 for s in stride):
        raise ValueError('{}: expected stride >= 1, got {}'.format(
            where, stride))
    if any(p < 0 for p in pad):
        raise ValueError('{}: expected pad >= 0, got {}'.format(where, pad))
    if any(d < 1 for d in dilate):
        raise ValueError('{}: expected dilate >= 1, got {}'.format(
            where, dilate))
    if isinstance(groups, (bool, numpy.bool_)) or int(groups) != groups or \
            groups < 1:
        raise ValueError('{}: expected groups to be an int >= 1, got '
                         '{!r}'.format(where, groups))
    return stride, pad, dilate, int(groups)


def _check_ndim(ndim, where):
    if int(ndim) != ndim or ndim < 1:
        raise ValueError('{}: expected ndim >= 1 spatial axes, got {}'.format(
            where, ndim))
    return int(ndim)


def _prod(values):
    n = 1
    for v in values:
        n *= v
    return n


def _check_groups(shape_expr, groups, what):
    value = type_check.eval(shape_expr)
    if value % groups:
        raise type_check.InvalidType(
            '{} % groups == 0'.format(what),
            '{} % {} != 0'.format(value, groups))


def _padded(pad, cover_all):
    """Whether a convolution reads zero padding around x (per-axis options)."""
    return any(cover_all) or any(p > 0 for p in pad)


def _onednn_pad_r(size, ksize, outsize, stride, pad, dilate):
    """oneDNN's right padding giving ``outsize`` (cover_all's extra pad included).

    oneDNN's output size is ``(size + pad_l + pad_r - extent) // stride + 1``;
    Chainer's plain size needs ``pad_r = pad``, cover_all (or a larger
    deconvolution outsize) needs the right padding to reach the last window.
    """
    return [max(p, (o - 1) * s + (k - 1) * d + 1 - h - p)
            for h, k, o, s, p, d in zip(size, ksize, outsize, stride, pad,
                                        dilate)]




def _macs(x_shape, w_shape):
    """Multiply-adds of a convolution at unit stride, about: every output
    pixel (one per input pixel) of every filter over ``C / groups`` inputs."""
    return _prod(x_shape) // max(x_shape[1], 1) * _prod(w_shape)


def _native_weight(W):
    """The weight's mdarray when it lives on the Intel64 device, else None.

    Given to the filter-gradient node so that oneDNN writes the gradient in
    the weight's own layout (the optimizer then updates it in place).
    """
    return W if intel64.is_native_array(W) else None


def _add_bias(y, b):
    if b is not None:
        y += b.reshape((1, b.shape[0]) + (1,) * (y.ndim - 2))
    return y


def _bias_grad(gy):
    from cpuframe.functions.math.sum import sum as sum_
    return sum_(gy, axis=(0,) + tuple(range(2, gy.ndim)))


def _conv_forward(x, W, b, stride, pad, dilate, groups, cover_all):
    """``y[n, o] = sum_{c, k} W[o, c, k] * x_padded[n, g(o)*Cg + c, s*i + d*k]``."""
    xp = backend.get_array_module(x, W)
    nd = x.ndim - 2
    n, c = x.shape[:2]
    out_c = W.shape[0]
    ksize = W.shape[2:]
    col = im2col(x, ksize, stride, pad, dilate, cover_all)
    outsize = col.shape[2 + nd:]
    cg_k = (c // groups) * _prod(ksize)
    col = col.reshape(n, groups, cg_k, _prod(outsize))
    # One matrix product per (image, group); the result is already NCHW.
    y = xp.matmul(W.reshape(groups, out_c // groups, cg_k), col)
    y = y.reshape((n, out_c) + outsize).astype(x.dtype, copy=False)
    return _add_bias(y, b)


def _conv_grad_weight(x, gy, ksize, stride, pad, dilate, groups, cover_all,
                      dtype):
    """``gW[o, c, k] = sum_{n, i} gy[n, o, i] * col(x)[n, c, k, i]``."""
    xp = backend.get_array_module(x, gy)
    nd = x.ndim - 2
    n, c = x.shape[:2]
    out_c = gy.shape[1]
    col = im2col(x, ksize, stride, pad, dilate, cover_all)
    outsize = col.shape[2 + nd:]
    if tuple(outsize) != tuple(gy.shape[2:]):
        raise ValueError(
            'ConvolutionNDGradW: the output gradient has spatial shape {}, '
            'the convolution gives {}'.format(gy.shape[2:], outsize))
    cg, og = c // groups, out_c // groups
    cg_k = cg * _prod(ksize)
    n_p = n * _prod(outsize)
    # Batch and output positions become the contraction axis, so that each
    # group is one large matrix product instead of one per image.
    col = col.reshape((n, groups, cg) + col.shape[2:])
    perm = (1, 2) + tuple(range(3, 3 + nd)) + (0,) + \
        tuple(range(3 + nd, 3 + 2 * nd))
    col = col.transpose(perm).reshape(groups, cg_k, n_p)
    g = gy.reshape(n, groups, og, _prod(outsize)).transpose(1, 2, 0, 3)
    g = g.reshape(groups, og, n_p)
    gW = xp.matmul(g, col.transpose(0, 2, 1))
    return gW.reshape((out_c, cg) + tuple(ksize)).astype(dtype, copy=False)


class ConvolutionND(FunctionNode):
    """N-d convolution of ``x`` with ``W`` (and bias ``b``).

    ``cover_all`` may be one bool per spatial axis (used by the gradient
    of deconvolution); Chainer's API takes a single bool.
    """

    _where = 'convolution_nd'

    def __init__(self, ndim, stride=1, pad=0, cover_all=False, dilate=1,
                 groups=1):
        self.ndim = _check_ndim(ndim, self._where)
        self.stride, self.pad, self.dilate, self.groups = _conv_args(
            self.ndim, stride, pad, dilate, groups, self._where)
        self.cover_all = cover_all
        self._cover_all = _per_axis(cover_all, self.ndim,
                                    self._where + ': cover_all')

    def check_type_forward(self, in_types):
        n_in = type_check.eval(in_types.size())
        type_check.argname(in_types, ('x', 'W') if n_in == 2 else
                           ('x', 'W', 'b'))
        x_type, w_type = in_types[0], in_types[1]
        type_check.expect(
            x_type.dtype.kind == 'f',
            w_type.dtype.kind == 'f',
            x_type.ndim == self.ndim + 2,
            w_type.ndim == self.ndim + 2,
            x_type.shape[1] == w_type.shape[1] * self.groups,
        )
        _check_groups(w_type.shape[0], self.groups, 'W.shape[0]')
        size = type_check.eval(x_type.shape)[2:]
        ksize = type_check.eval(w_type.shape)[2:]
        outsize = conv_outsize(size, ksize, self.stride, self.pad,
                               self.dilate, self._cover_all)
        if any(o <= 0 for o in outsize):
            raise type_check.InvalidType(
                'a positive output size: x.shape[2:] + 2 * pad >= '
                '(W.shape[2:] - 1) * dilate + 1',
                'x.shape[2:] = {}, W.shape[2:] = {}, pad = {}, dilate = {} '
                'give output size {}'.format(size, ksize, self.pad,
                                             self.dilate, outsize))
        if n_in == 3:
            b_type = in_types[2]
            type_check.expect(
                b_type.dtype == x_type.dtype,
                b_type.ndim == 1,
                b_type.shape[0] == w_type.shape[0],
            )

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, W = inputs[0], inputs[1]
        b = inputs[2] if len(inputs) == 3 else None
        return _conv_forward(x, W, b, self.stride, self.pad, self.dilate,
                             self.groups, self._cover_all),

    def intel64_supports(self, inputs):
        # oneDNN skips the zero padding; the NumPy path multiplies it by
        # W, so a NaN or infinite weight makes NaN at the borders there.
        return intel64.all_float32(inputs) and 1 <= self.ndim <= 3 and \
            intel64.geometry_supported(inputs, self._options()) and (
                not _padded(self.pad, self._cover_all) or intel64.all_within(inputs[1]))

    def _options(self):
        return self.stride + self.pad + self.dilate

    def intel64_profitable(self, inputs):
        x, W = inputs[0], inputs[1]
        return intel64.auto_profitable(
            'convolution', _macs(x.shape, W.shape) // _prod(self.stride))

    def forward_intel64(self, inputs):
        self.retain_inputs((0, 1))
        x, W = inputs[0], inputs[1]
        b = inputs[2] if len(inputs) == 3 else None
        ksize = W.shape[2:]
        outsize = conv_outsize(x.shape[2:], ksize, self.stride, self.pad,
                               self.dilate, self._cover_all)
        pad_r = _onednn_pad_r(x.shape[2:], ksize, outsize, self.stride,
                              self.pad, self.dilate)
        # On the device the output is computed when first read, so that a
        # relu consuming it first runs as the convolution's post-op.
        return intel64.native().convolution_forward(
            x, W, b, self.stride, self.dilate, self.pad, pad_r, self.groups,
            defer=intel64.may_defer(inputs)),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.connection.deconvolution_nd import DeconvolutionND
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        ret = []
        if 0 in indexes:
            ret.append(DeconvolutionND(
                self.ndim, self.stride, self.pad, outsize=x.shape[2:],
                dilate=self.dilate, groups=self.groups).apply((gy, W))[0])
        if 1 in indexes:
            # The filter and bias gradients in one node (one oneDNN primitive).
            grad_w = ConvolutionNDGradW(
                self.ndim, W.shape[2:], self.stride, self.pad, self.dilate,
                self.groups, self._cover_all, W.dtype, with_bias=2 in indexes,
                w_like=_native_weight(W.array))
            ret.extend(grad_w.apply((x, gy)))
        elif 2 in indexes:
            ret.append(_bias_grad(gy))
        return tuple(ret)


class ConvolutionNDGradW(FunctionNode):
    """The filter gradient of a convolution, from ``x`` and ``gy``.

    With ``with_bias`` it also outputs the bias gradient (``gy`` summed over
    the batch and spatial axes), so that oneDNN computes both in one pass.
    Its gradients are again a deconvolution (for ``x``) and a convolution
    (for ``gy``, with the incoming bias gradient as its bias).  ``w_like``
    is the weight's mdarray, whose layout the intel64 route gives the
    filter gradient.
    """

    def __init__(self, ndim, ksize, stride, pad, dilate, groups, cover_all,
                 w_dtype, with_bias=False, w_like=None):
        self.ndim = ndim
        self.ksize = tuple(ksize)
        self.stride = stride
        self.pad = pad
        self.dilate = dilate
        self.groups = groups
        self.cover_all = tuple(cover_all)
        self.w_dtype = numpy.dtype(w_dtype)
        self.with_bias = with_bias
        self.w_like = w_like

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x', 'gy'))
        x_type, gy_type = in_types
        type_check.expect(
            x_type.dtype.kind == 'f',
            gy_type.dtype.kind == 'f',
            x_type.ndim == self.ndim + 2,
            gy_type.ndim == self.ndim + 2,
            x_type.shape[0] == gy_type.shape[0],
        )
        _check_groups(x_type.shape[1], self.groups, 'x.shape[1]')
        _check_groups(gy_type.shape[1], self.groups, 'gy.shape[1]')

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, gy = inputs
        gW = _conv_grad_weight(x, gy, self.ksize, self.stride, self.pad,
                               self.dilate, self.groups, self.cover_all,
                               self.w_dtype)
        if not self.with_bias:
            return gW,
        axes = (0,) + tuple(range(2, gy.ndim))
        return gW, gy.sum(axis=axes).astype(gy.dtype, copy=False)

    def intel64_on_device(self, inputs):
        return self.w_like is not None or intel64.any_native(inputs)

    def intel64_supports(self, inputs):
        # The NumPy path multiplies gy by x's zero padding (0 * inf = NaN);
        # oneDNN skips it: a non-finite gy meeting padding stays there.
        return intel64.all_float32(inputs) and \
            self.w_dtype == numpy.float32 and 1 <= self.ndim <= 3 and \
            intel64.geometry_supported(
                tuple(inputs) + (tuple(self.ksize),),
                self.stride + self.pad + self.dilate) and (
                not _padded(self.pad, self.cover_all) or intel64.all_within(inputs[1]))

    def intel64_profitable(self, inputs):
        x, gy = inputs
        return intel64.auto_profitable(
            'convolution', x.size * gy.shape[1] // self.groups *
            _prod(self.ksize) // _prod(self.stride))

    def forward_intel64(self, inputs):
        self.retain_inputs((0, 1))
        x, gy = inputs
        w_shape = (gy.shape[1], x.shape[1] // self.groups) + self.ksize
        pad_r = _onednn_pad_r(x.shape[2:], self.ksize, gy.shape[2:],
                              self.stride, self.pad, self.dilate)
        gW, gb = intel64.native().convolution_backward_weights(
            x, gy, w_shape, self.with_bias, self.stride, self.dilate,
            self.pad, pad_r, self.groups, self.w_like)
        return (gW, gb) if self.with_bias else (gW,)

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.connection.deconvolution_nd import DeconvolutionND
        x, gy = self.get_retained_inputs()
        ggW = grad_outputs[0]
        ret = []
        if 0 in indexes:
            ret.append(DeconvolutionND(
                self.ndim, self.stride, self.pad, outsize=x.shape[2:],
                dilate=self.dilate, groups=self.groups).apply((gy, ggW))[0])
        if 1 in indexes:
            args = (x, ggW, grad_outputs[1]) if self.with_bias else (x, ggW)
            ret.append(ConvolutionND(
                self.ndim, self.stride, self.pad, self.cover_all,
                dilate=self.dilate, groups=self.groups).apply(args)[0])
        return tuple(ret)


def convolution_nd(x, W, b=None, stride=1, pad=0, cover_all=False, dilate=1,
                   groups=1):
    """N-dimensional convolution (cross-correlation, as in every framework).

    With ``N`` spatial axes, ``x`` is ``(batch, in_channels, d_1, ..., d_N)``,
    ``W`` is ``(out_channels, in_channels / groups, k_1, ..., k_N)`` and
    ``b`` is ``(out_channels,)`` or None.  The output is
    ``(batch, out_channels, o_1, ..., o_N)`` with
    ``o_i = (d_i + 2 p_i - ((k_i - 1) * dilate_i + 1)) // s_i + 1``
    (with ``cover_all``, ``s_i - 1`` is added before the division so that
    every input element is covered by some window)::

        y[n, o, i...] = b[o] + sum_{c, k...} W[o, c, k...] *
                        x_pad[n, g * Cg + c, s * i + dilate * k ...]

    where ``g = o // (out_channels / groups)`` and ``Cg = in_channels /
    groups``.

    Args:
        x, W, b: Variables or arrays as above (``b`` optional).
        stride, pad, dilate: an int or one int per spatial axis.
        cover_all (bool): keep the last, partial window.
        groups (int): split channels into this many independent groups.

    >>> x = np.zeros((2, 3, 5, 5, 5), np.float32)
    >>> W = np.zeros((4, 3, 3, 3, 3), np.float32)
    >>> F.convolution_nd(x, W, pad=1).shape
    (2, 4, 5, 5, 5)
    """
    ndim = max(len(x.shape[2:]), 1)
    fnode = ConvolutionND(ndim, stride, pad, cover_all, dilate=dilate,
                          groups=groups)
    args = (x, W) if b is None else (x, W, b)
    return fnode.apply(args)[0]


def _check_spatial(x, n, where):
    if len(x.shape[2:]) != n:
        raise ValueError(
            '{}: expected an input with {} spatial axis(es) ({} dimensions), '
            'got shape {}'.format(where, n, n + 2, tuple(x.shape)))


def convolution_1d(x, W, b=None, stride=1, pad=0, cover_all=False, dilate=1,
                   groups=1):
    """1-D convolution: :func:`convolution_nd` for ``x`` of shape ``(N, C, L)``."""
    _check_spatial(x, 1, 'convolution_1d')
    return convolution_nd(x, W, b, stride, pad, cover_all, dilate, groups)


def convolution_3d(x, W, b=None, stride=1, pad=0, cover_all=False, dilate=1,
                   groups=1):
    """3-D convolution: :func:`convolution_nd` for ``x`` ``(N, C, D, H, W)``."""
    _check_spatial(x, 3, 'convolution_3d')
    return convolution_nd(x, W, b, stride, pad, cover_all, dilate, groups)

