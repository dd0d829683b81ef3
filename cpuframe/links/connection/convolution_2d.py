"""2-D convolution layer."""
from cpuframe.functions.connection.convolution_2d import convolution_2d
from cpuframe.links.connection._conv_base import (
    ConvolutionLinkBase,
    split_channels_args,
)


class Convolution2D(ConvolutionLinkBase):
    """2-D convolution; weight (out_channels, in_channels/groups, kh, kw).

    ``Convolution2D(out_channels, ksize)`` or ``in_channels=None`` infers the
    input channels from the first input.  ``initialW`` defaults to
    LeCunNormal, the bias to zero.
    """

    def __init__(self, in_channels, out_channels, ksize=None, stride=1, pad=0,
                 nobias=False, initialW=None, initial_bias=None, *,
                 dilate=1, groups=1):
        in_channels, out_channels, ksize = split_channels_args(
            in_channels, out_channels, ksize)
        super().__init__(2, in_channels, out_channels, ksize, stride, pad,
                         nobias, initialW, initial_bias, dilate, groups)

    def forward(self, x):
        self._lazy_init(x)
        return convolution_2d(x, self.W, self.b, self.stride, self.pad,
                              dilate=self.dilate, groups=self.groups)
