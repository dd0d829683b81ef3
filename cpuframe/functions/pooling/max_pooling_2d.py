"""Spatial (2-D) max pooling."""
from cpuframe.functions.pooling.max_pooling_nd import (
    MaxPoolingND,
    MaxPoolingNDGrad,
    MaxPoolingNDWithIndexes,
)


class MaxPooling2DGrad(MaxPoolingNDGrad):
    """Gradient of :class:`MaxPooling2D`; differentiable again."""


class MaxPooling2DWithIndexes(MaxPoolingNDWithIndexes):
    """Gather each window of ``x`` at the maxima positions of a pooling."""


class MaxPooling2D(MaxPoolingND):
    """Max pooling over the planes of ``(n, c, h, w)``."""

    _grad_class = MaxPooling2DGrad
    _with_indexes_class = MaxPooling2DWithIndexes

    def __init__(self, ksize, stride=None, pad=0, cover_all=True,
                 return_indices=False):
        super().__init__(2, ksize, stride, pad, cover_all, return_indices)


def max_pooling_2d(x, ksize, stride=None, pad=0, cover_all=True,
                   return_indices=False):
    """Spatial max pooling.

    Acts like :func:`convolution_2d` without parameters: each output element
    is the maximum of a ``ksize`` window of one channel; padding counts as
    ``-inf``::

        y[n, c, i, j] = max over (p, q) of
                        x[n, c, i * sy + p - ph, j * sx + q - pw]

    Args:
        x (Variable or array): Input of shape ``(n, c, h, w)``.
        ksize (int or pair of ints): Window size; ``k`` means ``(k, k)``.
        stride (int, pair of ints or None): Stride; ``None`` means ``ksize``.
        pad (int or pair of ints): Padding on both sides.
        cover_all (bool): If True, every input pixel is pooled into some
            output pixel, which may make the output larger.
        return_indices (bool): If True, also return where each maximum
            sits in its window, as a flat index ``p * kw + q`` (an int32
            array of the output's shape); :func:`upsampling_2d` takes it.

    As in Chainer, ``pad`` may reach ``ksize``: a window lying wholly in
    the padding gives ``-inf`` (also possible with ``cover_all`` and
    ``pad > 0``) and passes no gradient.

    Returns:
        Variable of shape ``(n, c, out_h, out_w)`` with
        ``out_h = (h + 2 * ph - kh [+ sy - 1 if cover_all]) // sy + 1``
        (``out_w`` likewise), or ``(y, indexes)`` with ``return_indices``.

    >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    >>> F.max_pooling_2d(x, 2).array
    array([[[[ 5.,  7.],
             [13., 15.]]]], dtype=float32)
    """
    func = MaxPooling2D(ksize, stride, pad, cover_all, return_indices)
    y = func.apply((x,))[0]
    if return_indices:
        return y, func.indexes
    return y
