"""2-D deconvolution (transposed convolution), Chainer's ``deconvolution_2d``.

The computation is :class:`DeconvolutionND` with two spatial axes; this
module gives it Chainer's 2-D name, class and signature.
"""
from cpuframe.functions.connection.deconvolution_nd import DeconvolutionND


class Deconvolution2DFunction(DeconvolutionND):
    """2-D deconvolution; ``dilate`` and ``groups`` are keyword-only as in Chainer."""

    _where = 'deconvolution_2d'

    def __init__(self, stride=1, pad=0, outsize=None, *, dilate=1, groups=1):
        super().__init__(2, stride, pad, outsize, dilate=dilate,
                         groups=groups)


def deconvolution_2d(x, W, b=None, stride=1, pad=0, outsize=None, *,
                     dilate=1, groups=1):
    """Two-dimensional deconvolution (transposed convolution).

    The adjoint of :func:`convolution_2d` with the same filter: ``x`` is
    ``(n, c_I, h, w)``, ``W`` is ``(c_I, c_O / groups, k_H, k_W)`` and ``b``
    is ``(c_O,)`` or None.  Every input pixel scatters ``W[c]`` scaled by its
    value into the output at stride ``s``::

        y_pad[n, g * c_O/groups + o, s_Y i + d_Y p, s_X j + d_X q] +=
            W[c, o, p, q] * x[n, c, i, j]        (c in group g)

    and ``y`` is ``y_pad`` cropped by ``pad`` on each side, plus ``b``.  The
    output height is ``h_O = s_Y (h - 1) + (k_H - 1) d_Y + 1 - 2 p_H``
    (likewise the width) unless ``outsize`` is given: it may be any
    ``(h_O, w_O)`` whose convolution (with or without ``cover_all``) gives
    back ``(h, w)``; anything else raises ``InvalidType``.

    Args:
        x: input Variable or array, ``(n, c_I, h, w)``, floating point.
        W: filter, ``(c_I, c_O / groups, k_H, k_W)``.
        b: bias ``(c_O,)`` or None.
        stride (int or pair): ``s_Y, s_X``.
        pad (int or pair): ``p_H, p_W``.
        outsize (pair or None): ``(h_O, w_O)``.
        dilate (int or pair): ``d_Y, d_X``.
        groups (int): number of channel groups.

    Returns:
        Variable ``(n, c_O, h_O, w_O)`` of ``x``'s dtype.

    >>> x = np.zeros((2, 4, 3, 3), np.float32)
    >>> W = np.zeros((4, 5, 4, 4), np.float32)
    >>> F.deconvolution_2d(x, W, stride=2, pad=1).shape
    (2, 5, 6, 6)
    """
    fnode = Deconvolution2DFunction(stride, pad, outsize, dilate=dilate,
                                    groups=groups)
    args = (x, W) if b is None else (x, W, b)
    return fnode.apply(args)[0]
