"""Spatial (2-D) average pooling."""
from cpuframe.functions.pooling.average_pooling_nd import AveragePoolingND


class AveragePooling2D(AveragePoolingND):
    """Average pooling over the planes of ``(n, c, h, w)``, padding included."""

    def __init__(self, ksize, stride=None, pad=0):
        super().__init__(2, ksize, stride, pad, pad_value=0)

    def _like(self):
        return AveragePooling2D(self.ksize, self.stride, self.pad)


def average_pooling_2d(x, ksize, stride=None, pad=0):
    """Spatial average pooling.

    Acts like :func:`convolution_2d` with a constant kernel: each output
    element is the mean of a ``ksize`` window of one channel.  Padded
    elements count as zeros and every window is divided by ``kh * kw``
    (Chainer's rule; :func:`average_pooling_nd` with ``pad_value=None``
    leaves the padding out instead).  Windows never run past the padded
    input (there is no ``cover_all``)::

        y[n, c, i, j] = 1 / (kh * kw) * sum over (p, q) of
                        x_padded[n, c, i * sy + p, j * sx + q]

    Args:
        x (Variable or array): Input of shape ``(n, c, h, w)``.
        ksize (int or pair of ints): Window size; ``k`` means ``(k, k)``.
        stride (int, pair of ints or None): Stride; ``None`` means ``ksize``.
        pad (int or pair of ints): Zero padding on both sides.

    Returns:
        Variable of shape ``(n, c, (h + 2 * ph - kh) // sy + 1,
        (w + 2 * pw - kw) // sx + 1)``.

    >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    >>> F.average_pooling_2d(x, 2).array
    array([[[[ 2.5,  4.5],
             [10.5, 12.5]]]], dtype=float32)
    """
    return AveragePooling2D(ksize, stride, pad).apply((x,))[0]
