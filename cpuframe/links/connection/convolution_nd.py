"""N-dimensional convolution layer."""
from cpuframe import variable
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

    # The ndim a subclass (Convolution1D/3D) fixes; None takes it first.
    _fixed_ndim = None

    @classmethod
    def from_params(cls, W, b=None, stride=1, pad=0, nobias=False, *,
                    cover_all=False, dilate=1, groups=1):
        """A ConvolutionND whose parameters are copies of ``W``
        (out_channels, in_channels/groups, *ksize) and ``b`` (Chainer 7)."""
        out_channels, in_per_group = W.shape[:2]
        ksize = tuple(W.shape[2:])
        if b is not None and out_channels != b.size:
            raise ValueError('`out_channels` does not match the size of `b`')
        args = (in_per_group * groups, out_channels, ksize, stride, pad,
                nobias)
        if cls._fixed_ndim is None:
            args = (len(ksize),) + args
        elif cls._fixed_ndim != len(ksize):
            raise ValueError('{}.from_params: expected a {}-d kernel, got W '
                             'of shape {}'.format(cls.__name__,
                                                  cls._fixed_ndim, W.shape))
        return cls(*args, initialW=variable.as_array(W),
                   initial_bias=variable.as_array(b), cover_all=cover_all,
                   dilate=dilate, groups=groups)

    def forward(self, x):
        self._lazy_init(x)
        return convolution_nd(x, self.W, self.b, self.stride, self.pad,
                              cover_all=self.cover_all, dilate=self.dilate,
                              groups=self.groups)


class Convolution1D(ConvolutionND):
    """1-d convolution (``ConvolutionND`` with ndim=1)."""

    _fixed_ndim = 1

    def __init__(self, in_channels, out_channels, ksize=None, stride=1, pad=0,
                 nobias=False, initialW=None, initial_bias=None,
                 cover_all=False, dilate=1, groups=1):
        super().__init__(1, in_channels, out_channels, ksize, stride, pad,
                         nobias, initialW, initial_bias, cover_all, dilate,
                         groups)


class Convolution3D(ConvolutionND):
    """3-d convolution (``ConvolutionND`` with ndim=3)."""

    _fixed_ndim = 3

    def __init__(self, in_channels, out_channels, ksize=None, stride=1, pad=0,
                 nobias=False, initialW=None, initial_bias=None,
                 cover_all=False, dilate=1, groups=1):
        super().__init__(3, in_channels, out_channels, ksize, stride, pad,
                         nobias, initialW, initial_bias, cover_all, dilate,
                         groups)
