"""N-dimensional deconvolution layer."""
from cpuframe.functions.connection.deconvolution_nd import deconvolution_nd
from cpuframe.links.connection._conv_base import (
    ConvolutionLinkBase,
    split_channels_args,
)


class DeconvolutionND(ConvolutionLinkBase):
    """N-d deconvolution; weight (in_channels, out_channels/groups, *ksize)."""

    _transposed = True

    def __init__(self, ndim, in_channels, out_channels, ksize=None, stride=1,
                 pad=0, nobias=False, outsize=None, initialW=None,
                 initial_bias=None, dilate=1, groups=1):
        in_channels, out_channels, ksize = split_channels_args(
            in_channels, out_channels, ksize)
        super().__init__(ndim, in_channels, out_channels, ksize, stride, pad,
                         nobias, initialW, initial_bias, dilate, groups)
        self.outsize = outsize

    def forward(self, x):
        self._lazy_init(x)
        return deconvolution_nd(x, self.W, self.b, self.stride, self.pad,
                                self.outsize, dilate=self.dilate,
                                groups=self.groups)


class Deconvolution1D(DeconvolutionND):
    """1-d deconvolution (``DeconvolutionND`` with ndim=1)."""

    def __init__(self, in_channels, out_channels, ksize=None, stride=1, pad=0,
                 nobias=False, outsize=None, initialW=None, initial_bias=None,
                 dilate=1, groups=1):
        super().__init__(1, in_channels, out_channels, ksize, stride, pad,
                         nobias, outsize, initialW, initial_bias, dilate,
                         groups)


class Deconvolution3D(DeconvolutionND):
    """3-d deconvolution (``DeconvolutionND`` with ndim=3)."""

    def __init__(self, in_channels, out_channels, ksize=None, stride=1, pad=0,
                 nobias=False, outsize=None, initialW=None, initial_bias=None,
                 dilate=1, groups=1):
        super().__init__(3, in_channels, out_channels, ksize, stride, pad,
                         nobias, outsize, initialW, initial_bias, dilate,
                         groups)
