"""N-dimensional convolution layer."""
from cpuframe.functions.connection.convolution_nd import convolution_nd
from cpuframe.links.connection._conv_base import (
    ConvolutionLinkBase,
    split_channels_args,
)


class ConvolutionND(ConvolutionLinkBase):
    """N-d convolution; weight (out_channels, in_channels/groups, *ksize)."""

    def __init__(self, ndim, in_channels, out_channels, ksize=None, stride=1,
                 pad=0, nobias=False, initialW=None, initial_bias=None,
                 cover_all=False, dilate=1, groups=1):
        in_channels, out_channels, ksize = split_channels_args(
            in_channels, out_channels, ksize)
        super().__init__(ndim, in_channels, out_channels, ksize, stride, pad,
                         nobias, initialW, initial_bias, dilate, groups)
        self.cover_all = cover_all

    def forward(self, x):
        self._lazy_init(x)
        return convolution_nd(x, self.W, self.b, self.stride, self.pad,
                              cover_all=self.cover_all, dilate=self.dilate,
                              groups=self.groups)


class Convolution1D(ConvolutionND):
    """1-d convolution (``ConvolutionND`` with ndim=1)."""

    def __init__(self, in_channels, out_channels, ksize=None, stride=1, pad=0,
                 nobias=False, initialW=None, initial_bias=None,
                 cover_all=False, dilate=1, groups=1):
        super().__init__(1, in_channels, out_channels, ksize, stride, pad,
                         nobias, initialW, initial_bias, cover_all, dilate,
                         groups)


class Convolution3D(ConvolutionND):
    """3-d convolution (``ConvolutionND`` with ndim=3)."""

    def __init__(self, in_channels, out_channels, ksize=None, stride=1, pad=0,
                 nobias=False, initialW=None, initial_bias=None,
                 cover_all=False, dilate=1, groups=1):
        super().__init__(3, in_channels, out_channels, ksize, stride, pad,
                         nobias, initialW, initial_bias, cover_all, dilate,
                         groups)
