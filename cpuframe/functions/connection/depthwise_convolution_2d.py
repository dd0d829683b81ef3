"""Depthwise 2-D convolution, Chainer's ``depthwise_convolution_2d``.

Each input channel is convolved with its own ``multiplier`` filters: a
grouped convolution with one group per input channel, whose filter is
``W`` rearranged to ``(in_channels * multiplier, 1, kh, kw)``.  Output
channel ``c * multiplier + m`` comes from input channel ``c`` and filter
``W[m, c]``, as in Chainer.
"""
from cpuframe.backends import intel64
from cpuframe.function_node import FunctionNode
from cpuframe.functions.connection._conv_common import (
    bias_grad,
    conv_args,
    conv_forward,
    onednn_pad_r,
)
from cpuframe.functions.connection._im2col import conv_outsize
from cpuframe.functions.connection.convolution_nd import ConvolutionNDGradW
from cpuframe.functions.connection.deconvolution_nd import DeconvolutionND
from cpuframe.utils import type_check

_NO_COVER = (False, False)


def _grouped_filter(W):
    """``(m, c, kh, kw)`` to the grouped-convolution filter ``(c * m, 1, kh, kw)``."""
    m, c, kh, kw = W.shape
    return W.transpose(1, 0, 2, 3).reshape(c * m, 1, kh, kw)


class DepthwiseConvolution2D(FunctionNode):
    """Depthwise convolution of ``x`` with ``W`` (and bias ``b``)."""

    # (inputs, outputs) backward keeps, whichever route runs
    retained_for_backward = ((0, 1), ())

    _where = 'depthwise_convolution_2d'

    def __init__(self, stride=1, pad=0):
        self.stride, self.pad, self.dilate, _ = conv_args(
            2, stride, pad, 1, 1, self._where)

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('stride', 'pad')

    def check_type_forward(self, in_types):
        n_in = type_check.eval(in_types.size())
        type_check.argname(in_types, ('x', 'W') if n_in == 2 else
                           ('x', 'W', 'b'))
        x_type, w_type = in_types[0], in_types[1]
        type_check.expect(
            x_type.dtype.kind == 'f',
            w_type.dtype.kind == 'f',
            x_type.ndim == 4,
            w_type.ndim == 4,
            x_type.shape[1] == w_type.shape[1],
        )
        size = type_check.eval(x_type.shape)[2:]
        ksize = type_check.eval(w_type.shape)[2:]
        outsize = conv_outsize(size, ksize, self.stride, self.pad)
        if any(o <= 0 for o in outsize):
            raise type_check.InvalidType(
                'a positive output size: x.shape[2:] + 2 * pad >= '
                'W.shape[2:]',
                'x.shape[2:] = {}, W.shape[2:] = {}, pad = {} give output '
                'size {}'.format(size, ksize, self.pad, outsize))
        if n_in == 3:
            b_type = in_types[2]
            type_check.expect(
                b_type.dtype == x_type.dtype,
                b_type.ndim == 1,
                b_type.shape[0] == w_type.shape[0] * w_type.shape[1],
            )

    def forward(self, inputs):
        x, W = inputs[0], inputs[1]
        b = inputs[2] if len(inputs) == 3 else None
        return conv_forward(x, _grouped_filter(W), b, self.stride, self.pad,
                             self.dilate, x.shape[1], _NO_COVER),

    def intel64_supports(self, inputs):
        return intel64.all_float32(inputs) and intel64.geometry_supported(
            inputs, self.stride + self.pad + self.dilate)

    def forward_intel64(self, inputs):
        # The grouped filter is a (small) rearranged copy of W per call.
        x, W = inputs[0], inputs[1]
        b = inputs[2] if len(inputs) == 3 else None
        w = _grouped_filter(intel64.to_numpy(W))
        outsize = conv_outsize(x.shape[2:], w.shape[2:], self.stride,
                               self.pad)
        pad_r = onednn_pad_r(x.shape[2:], w.shape[2:], outsize, self.stride,
                              self.pad, self.dilate)
        return intel64.native().convolution_forward(
            x, w, b, self.stride, self.dilate, self.pad, pad_r, x.shape[1]),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.array.reshape import reshape
        from cpuframe.functions.array.transpose import transpose
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        m, c, kh, kw = W.shape
        ret = []
        if 0 in indexes:
            w = reshape(transpose(W, (1, 0, 2, 3)), (c * m, 1, kh, kw))
            ret.append(DeconvolutionND(
                2, self.stride, self.pad, outsize=x.shape[2:],
                groups=c).apply((gy, w))[0])
        if 1 in indexes:
            gw, = ConvolutionNDGradW(
                2, (kh, kw), self.stride, self.pad, self.dilate, c,
                _NO_COVER, W.dtype).apply((x, gy))
            ret.append(transpose(reshape(gw, (c, m, kh, kw)), (1, 0, 2, 3)))
        if 2 in indexes:
            ret.append(bias_grad(gy))
        return tuple(ret)


def depthwise_convolution_2d(x, W, b=None, stride=1, pad=0):
    """Two-dimensional depthwise convolution.

    ``x`` is ``(n, c_I, h, w)``, ``W`` is ``(c_M, c_I, k_H, k_W)`` (``c_M``
    filters per input channel) and ``b`` is ``(c_I * c_M,)`` or None.  The
    output is ``(n, c_I * c_M, h_O, w_O)``::

        y[n, c * c_M + m, i, j] = b[c * c_M + m] + sum_{p, q}
            W[m, c, p, q] * x_pad[n, c, s_Y i + p, s_X j + q]

    with ``h_O = (h + 2 p_H - k_H) // s_Y + 1`` (likewise ``w_O``).

    Args:
        x: input Variable or array, floating point.
        W: filter ``(c_M, c_I, k_H, k_W)``.
        b: bias ``(c_I * c_M,)`` or None.
        stride (int or pair), pad (int or pair): as in ``convolution_2d``.

    >>> x = np.zeros((2, 3, 5, 5), np.float32)
    >>> W = np.zeros((2, 3, 3, 3), np.float32)
    >>> F.depthwise_convolution_2d(x, W, pad=1).shape
    (2, 6, 5, 5)
    """
    args = (x, W) if b is None else (x, W, b)
    return DepthwiseConvolution2D(stride, pad).apply(args)[0]
