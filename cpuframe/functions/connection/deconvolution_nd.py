"""N-dimensional deconvolution (transposed convolution), Chainer's ``deconvolution_nd``.

Deconvolution is the adjoint of convolution: its forward pass is the
convolution's input gradient (a matrix product giving columns, then
col2im), and its gradients are a convolution (for ``x``) and a convolution
filter gradient (for ``W``).  See ``convolution_nd`` for the other half.
"""
from cpuframe import backend
from cpuframe.backends import intel64
from cpuframe.function_node import FunctionNode
from cpuframe.functions.connection._conv_common import (
    _matmul,
    add_bias,
    bias_grad,
    check_groups,
    check_ndim,
    check_spatial,
    conv_args,
    native_weight,
    onednn_pad_r,
    prod,
)
from cpuframe.functions.connection._im2col import col2im
from cpuframe.functions.connection.convolution_nd import (
    ConvolutionND,
    ConvolutionNDGradW,
)
from cpuframe.utils import type_check
from cpuframe.utils.conv import as_tuple, get_conv_outsize, get_deconv_outsize


def _deconv_forward(x, W, b, stride, pad, dilate, groups, outsize):
    """Columns ``W^T x`` per group, summed back into an image by col2im."""
    xp = backend.get_array_module(x, W)
    n, in_c = x.shape[:2]
    insize = x.shape[2:]
    out_cg = W.shape[1]
    ksize = W.shape[2:]
    in_cg = in_c // groups
    w = W.reshape(groups, in_cg, out_cg * prod(ksize)).transpose(0, 2, 1)
    x = x.reshape(n, groups, in_cg, prod(insize))
    if in_cg == 1:
        # depthwise: an outer product, much faster broadcast than as GEMMs
        col = w * x
    else:
        col = _matmul(xp, w, x)
    col = col.reshape((n, groups * out_cg) + tuple(ksize) + tuple(insize))
    y = col2im(col, stride, pad, outsize, dilate)
    y = y.astype(x.dtype, copy=False)
    return add_bias(y, b)


class DeconvolutionND(FunctionNode):
    """N-d deconvolution of ``x`` with ``W`` (and bias ``b``)."""

    bf16_inputs = (0,)
    bf16_weights = (1,)
    bf16_outputs = (0,)

    # (inputs, outputs) backward keeps, whichever route runs
    retained_for_backward = ((0, 1), ())

    _where = 'deconvolution_nd'

    def __init__(self, ndim, stride=1, pad=0, outsize=None, dilate=1,
                 groups=1):
        self.ndim = check_ndim(ndim, self._where)
        self.stride, self.pad, self.dilate, self.groups = conv_args(
            self.ndim, stride, pad, dilate, groups, self._where)
        self.outs = None if outsize is None else as_tuple(
            outsize, self.ndim, self._where + ': outsize')

    def _outsize(self, insize, ksize):
        if self.outs is not None:
            return self.outs
        return tuple(get_deconv_outsize(h, k, s, p, d=d) for h, k, s, p, d in
                     zip(insize, ksize, self.stride, self.pad, self.dilate))

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
            x_type.shape[1] == w_type.shape[0],
        )
        check_groups(w_type.shape[0], self.groups, 'W.shape[0]')
        insize = type_check.eval(x_type.shape)[2:]
        ksize = type_check.eval(w_type.shape)[2:]
        if self.outs is not None:
            # outsize is valid when a convolution of that size, with or
            # without cover_all, gives back the input size.
            for i, (k, s, p, d, out) in enumerate(zip(
                    ksize, self.stride, self.pad, self.dilate, self.outs)):
                lower = get_conv_outsize(out, k, s, p, d=d)
                upper = get_conv_outsize(out, k, s, p, cover_all=True, d=d)
                type_check.expect(
                    x_type.shape[2 + i] >= lower,
                    x_type.shape[2 + i] <= upper)
        outsize = self._outsize(insize, ksize)
        if any(o <= 0 for o in outsize):
            raise type_check.InvalidType(
                'a positive output size',
                'x.shape[2:] = {}, W.shape[2:] = {}, stride = {}, pad = {}, '
                'dilate = {} give output size {}'.format(
                    insize, ksize, self.stride, self.pad, self.dilate,
                    outsize))
        if n_in == 3:
            b_type = in_types[2]
            type_check.expect(
                b_type.dtype == x_type.dtype,
                b_type.ndim == 1,
                b_type.shape[0] == w_type.shape[1] * self.groups,
            )

    def forward(self, inputs):
        x, W = inputs[0], inputs[1]
        b = inputs[2] if len(inputs) == 3 else None
        outsize = self._outsize(x.shape[2:], W.shape[2:])
        return _deconv_forward(x, W, b, self.stride, self.pad, self.dilate,
                               self.groups, outsize),

    def intel64_supports(self, inputs):
        return intel64.all_float32(inputs) and 1 <= self.ndim <= 3 and \
            intel64.geometry_supported(
                inputs, self.stride + self.pad + self.dilate) and \
            intel64.finite_for_bf16(inputs[:2])

    def intel64_profitable(self, inputs):
        x, W = inputs[0], inputs[1]
        return intel64.auto_profitable('convolution',
                                       x.size * prod(W.shape[1:]))

    def forward_intel64(self, inputs):
        # Deconvolution is the input gradient of the convolution from the
        # output (size outsize) to x, with the same filter.
        x, W = inputs[0], inputs[1]
        b = inputs[2] if len(inputs) == 3 else None
        ksize = W.shape[2:]
        outsize = self._outsize(x.shape[2:], ksize)
        pad_r = onednn_pad_r(outsize, ksize, x.shape[2:], self.stride,
                              self.pad, self.dilate)
        y_shape = (x.shape[0], W.shape[1] * self.groups) + tuple(outsize)
        return intel64.native().convolution_backward_data(
            x, W, y_shape, self.stride, self.dilate, self.pad, pad_r,
            self.groups, b),

    def backward(self, indexes, grad_outputs):
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        ksize = W.shape[2:]
        # The convolution that maps gy back to x's size: per axis, cover_all
        # is needed exactly when the plain output size falls one short.
        cover_all = tuple(
            h != get_conv_outsize(out, k, s, p, d=d)
            for h, out, k, s, p, d in zip(x.shape[2:], gy.shape[2:], ksize,
                                          self.stride, self.pad, self.dilate))
        ret = []
        if 0 in indexes:
            ret.append(ConvolutionND(
                self.ndim, self.stride, self.pad, cover_all,
                dilate=self.dilate, groups=self.groups).apply((gy, W))[0])
        if 1 in indexes:
            ret.append(ConvolutionNDGradW(
                self.ndim, ksize, self.stride, self.pad, self.dilate,
                self.groups, cover_all, W.dtype,
                w_like=native_weight(W.array)).apply((gy, x))[0])
        if 2 in indexes:
            ret.append(bias_grad(gy))
        return tuple(ret)


def deconvolution_nd(x, W, b=None, stride=1, pad=0, outsize=None, dilate=1,
                     groups=1):
    """N-dimensional deconvolution (transposed convolution).

    The adjoint of :func:`convolution_nd`: ``x`` is ``(batch, in_channels,
    d_1, ..., d_N)``, ``W`` is ``(in_channels, out_channels / groups, k_1,
    ..., k_N)`` and ``b`` is ``(out_channels,)`` or None::

        y[n, g * Og + o, s * i + dilate * k ...] +=
            sum_c W[g * Cg + c, o, k...] * x[n, g * Cg + c, i...]

    cropped by ``pad`` on both sides.  The output length along each axis is
    ``s * (d - 1) + (k - 1) * dilate + 1 - 2 p`` unless ``outsize`` is
    given; ``outsize`` may be any size whose convolution (with or without
    ``cover_all``) has the input's size, else ``InvalidType`` is raised.

    Args:
        x, W, b: Variables or arrays as above (``b`` optional).
        stride, pad, dilate: an int or one int per spatial axis.
        outsize: a tuple of output sizes, or None.
        groups (int): split channels into this many independent groups.

    >>> x = np.zeros((2, 4, 3, 3, 3), np.float32)
    >>> W = np.zeros((4, 2, 2, 2, 2), np.float32)
    >>> F.deconvolution_nd(x, W, stride=2).shape
    (2, 2, 6, 6, 6)
    """
    ndim = max(len(x.shape[2:]), 1)
    fnode = DeconvolutionND(ndim, stride, pad, outsize, dilate=dilate,
                            groups=groups)
    args = (x, W) if b is None else (x, W, b)
    return fnode.apply(args)[0]


def deconvolution_1d(x, W, b=None, stride=1, pad=0, outsize=None, dilate=1,
                     groups=1):
    """1-D deconvolution: :func:`deconvolution_nd` for ``x`` of shape ``(N, C, L)``."""
    check_spatial(x, 1, 'deconvolution_1d')
    return deconvolution_nd(x, W, b, stride, pad, outsize, dilate, groups)


def deconvolution_3d(x, W, b=None, stride=1, pad=0, outsize=None, dilate=1,
                     groups=1):
    """3-D deconvolution: :func:`deconvolution_nd` for ``x`` ``(N, C, D, H, W)``."""
    check_spatial(x, 3, 'deconvolution_3d')
    return deconvolution_nd(x, W, b, stride, pad, outsize, dilate, groups)
