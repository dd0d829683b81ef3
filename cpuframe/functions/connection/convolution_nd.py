"""N-dimensional convolution (1-D, 2-D, 3-D, ...), Chainer's ``convolution_nd``.

The forward pass is im2col followed by one batched matrix product (one
per group).  Its gradient with respect to the input is a deconvolution of
the output gradient with the same filter, and deconvolution's gradient is
this convolution: the two ops are written as a pair, so gradients of any
order are again convolutions.  The gradient with respect to the filter is
``ConvolutionNDGradW``, whose own gradients are again the pair.
"""
import numpy

from cpuframe.backends import intel64
from cpuframe.function_node import FunctionNode
from cpuframe.functions.connection._conv_common import (
    bias_grad,
    check_groups,
    check_ndim,
    check_spatial,
    conv_args,
    conv_forward,
    conv_grad_weight,
    macs,
    native_weight,
    onednn_pad_r,
    padded,
    prod,
)
from cpuframe.functions.connection._im2col import _per_axis, conv_outsize
from cpuframe.utils import type_check


class ConvolutionND(FunctionNode):
    """N-d convolution of ``x`` with ``W`` (and bias ``b``).

    ``cover_all`` may be one bool per spatial axis (used by the gradient
    of deconvolution); Chainer's API takes a single bool.
    """

    # (its backward_arrays computes gradient nodes of constant settings:
    # @static_graph may replay those directly)
    _static_backward = True

    bf16_inputs = (0,)
    bf16_weights = (1,)
    bf16_outputs = (0,)

    # (inputs, outputs) backward keeps, whichever route runs
    retained_for_backward = ((0, 1), ())

    _where = 'convolution_nd'

    def __init__(self, ndim, stride=1, pad=0, cover_all=False, dilate=1,
                 groups=1):
        self.ndim = check_ndim(ndim, self._where)
        self.stride, self.pad, self.dilate, self.groups = conv_args(
            self.ndim, stride, pad, dilate, groups, self._where)
        self.cover_all = cover_all
        self._cover_all = _per_axis(cover_all, self.ndim,
                                    self._where + ': cover_all')

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('ndim', 'groups', 'stride', 'pad', 'dilate',
                         '_cover_all')

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
        check_groups(w_type.shape[0], self.groups, 'W.shape[0]')
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
        x, W = inputs[0], inputs[1]
        b = inputs[2] if len(inputs) == 3 else None
        return conv_forward(x, W, b, self.stride, self.pad, self.dilate,
                             self.groups, self._cover_all),

    def intel64_supports(self, inputs):
        # oneDNN skips the zero padding; the NumPy path multiplies it by
        # W, so a NaN or infinite weight makes NaN at the borders there.
        return intel64.all_float32(inputs) and 1 <= self.ndim <= 3 and \
            intel64.geometry_supported(inputs, self._options()) and (
                not padded(self.pad, self._cover_all) or
                intel64.all_within(inputs[1])) and \
            intel64.finite_for_bf16(inputs[:2])

    def _options(self):
        return self.stride + self.pad + self.dilate

    def intel64_profitable(self, inputs):
        x, W = inputs[0], inputs[1]
        return intel64.auto_profitable(
            'convolution', macs(x.shape, W.shape) // prod(self.stride))

    def forward_intel64(self, inputs):
        x, W = inputs[0], inputs[1]
        b = inputs[2] if len(inputs) == 3 else None
        ksize = W.shape[2:]
        outsize = conv_outsize(x.shape[2:], ksize, self.stride, self.pad,
                               self.dilate, self._cover_all)
        pad_r = onednn_pad_r(x.shape[2:], ksize, outsize, self.stride,
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
            ret.extend(self._grad_w(W.array, indexes).apply((x, gy)))
        elif 2 in indexes:
            ret.append(bias_grad(gy))
        return tuple(ret)

    def _grad_w(self, W, indexes):
        return ConvolutionNDGradW(
            self.ndim, W.shape[2:], self.stride, self.pad, self.dilate,
            self.groups, self._cover_all, W.dtype, with_bias=2 in indexes,
            w_like=native_weight(W))

    def backward_arrays(self, indexes, grad_outputs):
        from cpuframe.functions.connection.deconvolution_nd import DeconvolutionND
        from cpuframe.functions.math.sum import Sum
        x, W = self._retained_input_arrays()
        gy, = grad_outputs
        ret = []
        if 0 in indexes:
            ret.append(DeconvolutionND(
                self.ndim, self.stride, self.pad, outsize=x.shape[2:],
                dilate=self.dilate, groups=self.groups)._compute((gy, W))[0])
        if 1 in indexes:
            ret.extend(self._grad_w(W, indexes)._compute((x, gy)))
        elif 2 in indexes:
            # bias_grad's sum
            ret.append(Sum(axis=(0,) + tuple(range(2, gy.ndim)))._compute(
                (gy,))[0])
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

    bf16_inputs = (0, 1)

    # (inputs, outputs) backward keeps, whichever route runs
    retained_for_backward = ((0, 1), ())

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

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('ndim', 'groups')

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
        check_groups(x_type.shape[1], self.groups, 'x.shape[1]')
        check_groups(gy_type.shape[1], self.groups, 'gy.shape[1]')

    def forward(self, inputs):
        x, gy = inputs
        gW = conv_grad_weight(x, gy, self.ksize, self.stride, self.pad,
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
                not padded(self.pad, self.cover_all) or
                intel64.all_within(inputs[1])) and \
            intel64.finite_for_bf16(inputs)

    def intel64_profitable(self, inputs):
        x, gy = inputs
        return intel64.auto_profitable(
            'convolution', x.size * gy.shape[1] // self.groups *
            prod(self.ksize) // prod(self.stride))

    def forward_intel64(self, inputs):
        x, gy = inputs
        w_shape = (gy.shape[1], x.shape[1] // self.groups) + self.ksize
        pad_r = onednn_pad_r(x.shape[2:], self.ksize, gy.shape[2:],
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


def convolution_1d(x, W, b=None, stride=1, pad=0, cover_all=False, dilate=1,
                   groups=1):
    """1-D convolution: :func:`convolution_nd` for ``x`` of shape ``(N, C, L)``."""
    check_spatial(x, 1, 'convolution_1d')
    return convolution_nd(x, W, b, stride, pad, cover_all, dilate, groups)


def convolution_3d(x, W, b=None, stride=1, pad=0, cover_all=False, dilate=1,
                   groups=1):
    """3-D convolution: :func:`convolution_nd` for ``x`` ``(N, C, D, H, W)``."""
    check_spatial(x, 3, 'convolution_3d')
    return convolution_nd(x, W, b, stride, pad, cover_all, dilate, groups)

