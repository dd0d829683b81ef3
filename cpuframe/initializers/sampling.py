"""Filters that make a (de)convolution a linear resampler.

An N-d kernel of side ``k`` holds the separable "tent" (linear
interpolation) weights ``prod_i (1 - |x_i - c| / f)`` with ``f = (k+1)//2``
and ``c`` the kernel's centre; channel ``i`` maps only to channel ``i`` (or
every input channel to the single output channel).  Such a kernel used with
``stride == (k + 1) // 2`` resamples bilinearly (Long et al.,
https://arxiv.org/abs/1411.4038).
"""
import numpy

from cpuframe.initializer import Initializer
from cpuframe.initializers._util import fill


def _linear_filter(size, ndim, upsampling):
    factor = (size + 1) // 2
    centre = factor - 1.0 if size % 2 == 1 else factor - 0.5
    tent = 1.0 - numpy.abs(numpy.arange(size) - centre) / factor
    kernel = numpy.ones((size,) * ndim)
    for axis in range(ndim):
        shape = [1] * ndim
        shape[axis] = size
        kernel = kernel * tent.reshape(shape)
    if not upsampling:
        # A downsampler averages: its weights sum to one.
        kernel /= kernel.sum()
    return kernel


class _SamplingFilter(Initializer):

    def __init__(self, upsampling, interpolation='linear', dtype=None):
        if interpolation != 'linear':
            raise ValueError(
                'Unsupported interpolation method: {}'.format(interpolation))
        super().__init__(dtype)
        self.interpolation = interpolation
        self._upsampling = upsampling

    def __call__(self, array):
        if self.dtype is not None and array.dtype != numpy.dtype(self.dtype):
            raise ValueError('{}: expected an array of dtype {}, got {}'
                             .format(type(self).__name__,
                                     numpy.dtype(self.dtype), array.dtype))
        if array.ndim < 3:
            raise ValueError('{}: expected a (de)convolution weight with '
                             'spatial axes, got shape {}'
                             .format(type(self).__name__, array.shape))
        in_c, out_c = array.shape[:2]
        if not (in_c == out_c or out_c == 1):
            raise ValueError('{}: the first two axes must be equal or the '
                             'second must be 1, got shape {}'
                             .format(type(self).__name__, array.shape))
        ksizes = set(array.shape[2:])
        if len(ksizes) != 1:
            raise ValueError('ksize must be all same: {}'.format(
                array.shape[2:]))
        kernel = _linear_filter(array.shape[2], array.ndim - 2,
                                self._upsampling)
        weights = numpy.zeros(array.shape)
        channels = numpy.arange(in_c)
        if out_c == 1:
            weights[channels, 0] = kernel
        else:
            weights[channels, channels] = kernel
        fill(array, weights)


class UpsamplingDeconvFilter(_SamplingFilter):
    """Bilinear upsampling weights for a deconvolution (e.g.
    ``L.DeconvolutionND`` with ``stride == (ksize + 1) // 2``).

    Args:
        interpolation (str): only ``'linear'`` is supported.
        dtype: data type specifier.
    """

    def __init__(self, interpolation='linear', dtype=None):
        super().__init__(True, interpolation, dtype)


class DownsamplingConvFilter(_SamplingFilter):
    """Averaging downsampling weights (linear filter normalized to sum 1)
    for a convolution (e.g. ``L.ConvolutionND`` with
    ``stride == (ksize + 1) // 2``).

    Args:
        interpolation (str): only ``'linear'`` is supported.
        dtype: data type specifier.
    """

    def __init__(self, interpolation='linear', dtype=None):
        super().__init__(False, interpolation, dtype)
