"""1-d and 3-d deconvolution layers (``DeconvolutionND`` with fixed ndim)."""
from cpuframe.links.connection.deconvolution_nd import DeconvolutionND


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
