"""Spatial (2-D) unpooling."""
from cpuframe.functions.pooling.unpooling_nd import UnpoolingND, UnpoolingNDGrad


class Unpooling2DGrad(UnpoolingNDGrad):
    """Gradient of :class:`Unpooling2D`: the sum over each window."""


class Unpooling2D(UnpoolingND):
    """Unpooling over the planes of ``(n, c, h, w)``."""

    _grad_class = Unpooling2DGrad

    def __init__(self, ksize, stride=None, pad=0, outsize=None,
                 cover_all=True):
        super().__init__(2, ksize, stride, pad, outsize, cover_all)

    def _like(self):
        return Unpooling2D(self.ksize, self.stride, self.pad,
                           self._windows.in_dims, self.cover_all)


def unpooling_2d(x, ksize, stride=None, pad=0, outsize=None, cover_all=True):
    """Inverse of pooling: copy each pixel over a window of the output.

    Each input pixel ``x[n, c, i, j]`` is copied to the ``ksize`` window
    of the output starting at ``(i * sy - ph, j * sx - pw)``; where windows
    overlap (``stride < ksize``) the copies add up.  With the default
    ``stride = ksize`` and ``pad = 0`` this is nearest-neighbour upscaling.

    Args:
        x (Variable or array): Input of shape ``(n, c, h, w)``.
        ksize (int or pair of ints): Window size; ``k`` means ``(k, k)``.
        stride (int, pair of ints or None): Stride; ``None`` means ``ksize``.
        pad (int or pair of ints): Padding removed from both sides.
        outsize (None or pair of ints): Output ``(out_h, out_w)``.  By
            default ``sy * (h - 1) + kh - 2 * ph``, less ``sy - 1`` when
            ``cover_all`` (Chainer's rule: the size that max pooling with
            the same options maps back to ``h``).  When given, pooling it
            must give ``(h, w)``.
        cover_all (bool): Whether the inverted pooling used ``cover_all``.

    Returns:
        Variable of shape ``(n, c, out_h, out_w)``.

    >>> x = np.array([[[[1., 2.], [3., 4.]]]], np.float32)
    >>> F.unpooling_2d(x, 2, cover_all=False).array
    array([[[[1., 1., 2., 2.],
             [1., 1., 2., 2.],
             [3., 3., 4., 4.],
             [3., 3., 4., 4.]]]], dtype=float32)
    """
    return Unpooling2D(ksize, stride, pad, outsize, cover_all).apply((x,))[0]
