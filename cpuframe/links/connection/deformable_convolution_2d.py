"""Deformable 2-D convolution layer (Dai et al., 2017)."""
from cpuframe import initializers, link, variable
from cpuframe.functions.connection.deformable_convolution_2d_sampler import (
    deformable_convolution_2d_sampler,
)
from cpuframe.links.connection.convolution_2d import Convolution2D
from cpuframe.utils.conv import pair


class DeformableConvolution2D(link.Chain):
    """Two-dimensional deformable convolution layer.

    Two children: ``offset_conv``, a :class:`Convolution2D` from the input
    to the ``2 * k_H * k_W`` offset channels, and ``deform_conv``, a
    :class:`DeformableConvolution2DSampler` that convolves the input with
    its taps moved by those offsets (see
    :func:`~cpuframe.functions.deformable_convolution_2d_sampler`).  Both
    use ``ksize``, ``stride`` and ``pad``, so the offsets have the output's
    spatial size.

    Args:
        in_channels (int or None): input channels (None: from the first
            input).
        out_channels (int): output channels.
        ksize (int or pair): filter size.
        stride (int or pair): stride of both convolutions.
        pad (int or pair): padding of both convolutions.
        offset_nobias (bool): no bias in ``offset_conv``.
        offset_initialW, offset_initial_bias: initializers of
            ``offset_conv`` (defaults: Convolution2D's, LeCunNormal and 0).
        deform_nobias (bool): no bias in ``deform_conv``.
        deform_initialW, deform_initial_bias: initializers of
            ``deform_conv`` (defaults, as in Chainer: zeros and 0).

    >>> layer = L.DeformableConvolution2D(3, 4, 3, pad=1)
    >>> layer(np.zeros((2, 3, 5, 5), np.float32)).shape
    (2, 4, 5, 5)
    """

    def __init__(self, in_channels, out_channels, ksize, stride=1, pad=0,
                 offset_nobias=False, offset_initialW=None,
                 offset_initial_bias=None, deform_nobias=False,
                 deform_initialW=None, deform_initial_bias=None):
        super().__init__()
        kh, kw = pair(ksize, 'DeformableConvolution2D: ksize')
        with self.init_scope():
            self.offset_conv = Convolution2D(
                in_channels, 2 * kh * kw, (kh, kw), stride, pad,
                offset_nobias, offset_initialW, offset_initial_bias)
            self.deform_conv = DeformableConvolution2DSampler(
                in_channels, out_channels, (kh, kw), stride, pad,
                deform_nobias, deform_initialW, deform_initial_bias)

    def forward(self, x):
        """The deformable convolution of ``x`` ``(n, c_I, h, w)``."""
        return self.deform_conv(x, self.offset_conv(x))


class DeformableConvolution2DSampler(link.Link):
    """The filter of a deformable convolution, applied with given offsets.

    ``forward(x, offset)`` is
    ``F.deformable_convolution_2d_sampler(x, offset, W, b, stride, pad)``.

    Args:
        in_channels (int or None): input channels (None: from the first
            input).
        out_channels (int): output channels.
        ksize (int or pair): filter size.
        stride, pad (int or pair): as in the function.
        nobias (bool): no bias.
        initialW: initializer of ``W`` ``(out_channels, in_channels, k_H,
            k_W)``; default zeros, as in Chainer.
        initial_bias: initializer of ``b``; default 0.
    """

    def __init__(self, in_channels, out_channels, ksize, stride=1, pad=0,
                 nobias=False, initialW=None, initial_bias=None):
        super().__init__()
        self.ksize = pair(ksize, 'DeformableConvolution2DSampler: ksize')
        self.stride = pair(stride, 'DeformableConvolution2DSampler: stride')
        self.pad = pair(pad, 'DeformableConvolution2DSampler: pad')
        self.out_channels = out_channels
        self.initialW = initialW
        W_init = initializers._get_initializer(initialW)
        if W_init is None:
            W_init = initializers.Zero()
        with self.init_scope():
            self.W = variable.Parameter(W_init)
            if nobias:
                self.b = None
            else:
                b_init = initializers._get_initializer(initial_bias)
                if b_init is None:
                    b_init = initializers.Constant(0)
                self.b = variable.Parameter(b_init)
        if in_channels is not None:
            self._initialize_params(in_channels)

    def _initialize_params(self, in_channels):
        self.W.initialize((self.out_channels, in_channels) + self.ksize)
        if self.b is not None:
            self.b.initialize((self.out_channels,))

    def forward(self, x, offset):
        """The deformable convolution of ``x`` with ``offset``."""
        if self.W.array is None:
            self._initialize_params(x.shape[1])
        return deformable_convolution_2d_sampler(
            x, offset, self.W, self.b, self.stride, self.pad)
