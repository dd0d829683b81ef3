"""2-D convolution layer."""
from cpuframe import variable
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

    @classmethod
    def from_params(cls, W, b=None, stride=1, pad=0, nobias=False, *,
                    dilate=1, groups=1):
        """A Convolution2D whose parameters are copies of ``W``
        (out_channels, in_channels/groups, kh, kw) and ``b`` (Chainer 7)."""
        out_channels, in_per_group, kh, kw = W.shape
        if b is not None and out_channels != b.size:
            raise ValueError('`out_channels` does not match the size of `b`')
        return cls(in_per_group * groups, out_channels, (kh, kw), stride,
                   pad, nobias, initialW=variable.as_array(W),
                   initial_bias=variable.as_array(b), dilate=dilate,
                   groups=groups)

    def forward(self, x):
        self._lazy_init(x)
        return convolution_2d(x, self.W, self.b, self.stride, self.pad,
                              dilate=self.dilate, groups=self.groups)
