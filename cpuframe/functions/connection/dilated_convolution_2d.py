"""Dilated 2-D convolution, Chainer's ``dilated_convolution_2d``.

A convolution whose filter taps are ``dilate`` pixels apart; the same
computation as ``convolution_2d(..., dilate=dilate)`` under Chainer's
older name and argument order.
"""
from cpuframe.functions.connection.convolution_nd import ConvolutionND


class DilatedConvolution2DFunction(ConvolutionND):
    """2-D convolution with dilation (Chainer's argument order)."""

    _where = 'dilated_convolution_2d'

    def __init__(self, stride=1, pad=0, dilate=1, cover_all=False):
        super().__init__(2, stride, pad, cover_all, dilate=dilate)


def dilated_convolution_2d(x, W, b=None, stride=1, pad=0, dilate=1,
                           cover_all=False):
    """Two-dimensional dilated convolution.

    ``x`` is ``(n, c_I, h, w)``, ``W`` is ``(c_O, c_I, k_H, k_W)``, ``b`` is
    ``(c_O,)`` or None::

        y[n, o, i, j] = b[o] + sum_{c, p, q} W[o, c, p, q] *
                        x_pad[n, c, s_Y i + d_Y p, s_X j + d_X q]

    The filter covers ``(k_H - 1) d_Y + 1`` rows, so the output height is
    ``(h + 2 p_H - (k_H - 1) d_Y - 1) // s_Y + 1`` (``s_Y - 1`` more before
    the division with ``cover_all``).  Equivalent to
    ``convolution_2d(x, W, b, stride, pad, cover_all, dilate=dilate)``.

    >>> x = np.zeros((1, 2, 9, 9), np.float32)
    >>> W = np.zeros((3, 2, 3, 3), np.float32)
    >>> F.dilated_convolution_2d(x, W, dilate=2).shape
    (1, 3, 5, 5)
    """
    fnode = DilatedConvolution2DFunction(stride, pad, dilate, cover_all)
    args = (x, W) if b is None else (x, W, b)
    return fnode.apply(args)[0]
