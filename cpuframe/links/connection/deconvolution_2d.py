"""2-D deconvolution (transposed convolution) layer."""
from cpuframe.functions.connection.deconvolution_2d import deconvolution_2d
from cpuframe.links.connection._conv_base import (
    ConvolutionLinkBase,
    split_channels_args,
)


class Deconvolution2D(ConvolutionLinkBase):
    """2-D deconvolution; weight (in_channels, out_channels/groups, kh, kw)."""

    _transposed = True

    def __init__(self, in_channels, out_channels, ksize=None, stride=1, pad=0,
                 nobias=False, outsize=None, initialW=None, initial_bias=None,
                 *, dilate=1, groups=1):
        in_channels, out_channels, ksize = split_channels_args(
            in_channels, out_channels, ksize)
        super().__init__(2, in_channels, out_channels, ksize, stride, pad,
                         nobias, initialW, initial_bias, dilate, groups)
        self.outsize = outsize

    def forward(self, x):
        self._lazy_init(x)
        return deconvolution_2d(x, self.W, self.b, self.stride, self.pad,
                                self.outsize, dilate=self.dilate,
                                groups=self.groups)
