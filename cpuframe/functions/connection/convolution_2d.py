"""2-D convolution, Chainer's ``convolution_2d``.

The computation is :class:`ConvolutionND` with two spatial axes; this
module gives it Chainer's 2-D name, class and signature.
"""
from cpuframe.functions.connection.convolution_nd import ConvolutionND


class Convolution2DFunction(ConvolutionND):
    """2-D convolution; ``dilate`` and ``groups`` are keyword-only as in Chainer."""

    _where = 'convolution_2d'

    def __init__(self, stride=1, pad=0, cover_all=False, *, dilate=1,
                 groups=1):
        super().__init__(2, stride, pad, cover_all, dilate=dilate,
                         groups=groups)


def convolution_2d(x, W, b=None, stride=1, pad=0, cover_all=False, *,
                   dilate=1, groups=1):
    """Two-dimensional convolution (cross-correlation).

    ``x`` is ``(n, c_I, h, w)``, ``W`` is ``(c_O, c_I / groups, k_H, k_W)``
    and ``b`` is ``(c_O,)`` or None.  The output is ``(n, c_O, h_O, w_O)``::

        y[n, o, i, j] = b[o] + sum_{c, p, q} W[o, c, p, q] *
                        x_pad[n, g * c_I/groups + c, s_Y i + d_Y p, s_X j + d_X q]

    with ``g = o // (c_O / groups)``, ``x_pad`` the input zero-padded by
    ``pad`` and ``h_O = (h + 2 p_H - ((k_H - 1) d_Y + 1)) // s_Y + 1``
    (likewise ``w_O``).  With ``cover_all=True``, ``s_Y - 1`` is added before
    the division so that the last, partial window is kept.

    Args:
        x: input Variable or array, ``(n, c_I, h, w)``, floating point.
        W: filter, ``(c_O, c_I / groups, k_H, k_W)``.
        b: bias ``(c_O,)`` or None.
        stride (int or pair): ``s_Y, s_X``.
        pad (int or pair): ``p_H, p_W``.
        cover_all (bool): keep the last, partial window.
        dilate (int or pair): ``d_Y, d_X``, spacing of the filter taps.
        groups (int): number of channel groups; ``c_I`` and ``c_O`` must be
            divisible by it.

    Returns:
        Variable ``(n, c_O, h_O, w_O)`` of ``x``'s dtype.

    >>> x = np.zeros((2, 3, 7, 7), np.float32)
    >>> W = np.zeros((4, 3, 3, 3), np.float32)
    >>> F.convolution_2d(x, W, stride=2, pad=1).shape
    (2, 4, 4, 4)
    """
    fnode = Convolution2DFunction(stride, pad, cover_all, dilate=dilate,
                                  groups=groups)
    args = (x, W) if b is None else (x, W, b)
    return fnode.apply(args)[0]
