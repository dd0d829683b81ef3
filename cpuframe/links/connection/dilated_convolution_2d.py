"""2-D dilated convolution layer."""
from cpuframe.functions.connection.dilated_convolution_2d import (
    dilated_convolution_2d,
)
from cpuframe.links.connection._conv_base import (
    ConvolutionLinkBase,
    split_channels_args,
)


class DilatedConvolution2D(ConvolutionLinkBase):
    """2-D convolution with dilation ``dilate`` (kernel taps spread apart)."""

    def __init__(self, in_channels, out_channels, ksize=None, stride=1, pad=0,
                 dilate=1, nobias=False, initialW=None, initial_bias=None):
        in_channels, out_channels, ksize = split_channels_args(
            in_channels, out_channels, ksize)
        super().__init__(2, in_channels, out_channels, ksize, stride, pad,
                         nobias, initialW, initial_bias, dilate, 1)

    def forward(self, x):
        self._lazy_init(x)
        return dilated_convolution_2d(x, self.W, self.b, self.stride,
                                      self.pad, self.dilate)
