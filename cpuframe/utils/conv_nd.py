"""N-d im2col/col2im (Chainer's ``chainer.utils.conv_nd``), served by
cpuframe's implementation in ``cpuframe.functions.connection._im2col``."""
import numpy

from cpuframe.utils.conv import _require_cupy, get_conv_outsize


def as_tuple(x, n):
    """``x`` as an ``n``-tuple (an int is repeated)."""
    if hasattr(x, '__getitem__'):
        if len(x) != n:
            raise ValueError('expected {} values, got {}'.format(n, len(x)))
        return tuple(x)
    return (x,) * n


def im2col_nd_cpu(img, ksize, stride, pad, pval=0, cover_all=False,
                  dilate=1):
    """Columns ``(n, c, *ksize, *outsize)`` of ``img`` ``(n, c, *dims)``.

    ``ksize``, ``stride`` and ``pad`` are tuples of one int per spatial
    axis; elements outside the image read ``pval``.
    """
    from cpuframe.functions.connection import _im2col
    nd = img.ndim - 2
    dilate = as_tuple(dilate, nd)
    if not nd == len(ksize) == len(stride) == len(pad):
        raise ValueError('im2col_nd_cpu: ksize, stride and pad need one '
                         'value per spatial axis ({})'.format(nd))
    outs = tuple(get_conv_outsize(d, k, s, p, cover_all, di) for
                 d, k, s, p, di in zip(img.shape[2:], ksize, stride, pad,
                                       dilate))
    if not all(o > 0 for o in outs):
        raise AssertionError('Output sizes should be positive.')
    col = _im2col.im2col(img, ksize, stride, pad, dilate,
                         cover_all=cover_all, pval=pval)
    return numpy.array(col)


def col2im_nd_cpu(col, stride, pad, dims, dilate=1):
    """The adjoint of :func:`im2col_nd_cpu`: an image ``(n, c, *dims)``."""
    from cpuframe.functions.connection import _im2col
    nd = (col.ndim - 2) // 2
    return _im2col.col2im(col, stride, pad, dims, as_tuple(dilate, nd))


def im2col_nd_gpu(*args, **kwargs):
    _require_cupy('im2col_nd_gpu')


def col2im_nd_gpu(*args, **kwargs):
    _require_cupy('col2im_nd_gpu')


def im2col_nd(img, ksize, stride, pad, cover_all=False, dilate=1):
    """:func:`im2col_nd_cpu` with zero padding."""
    return im2col_nd_cpu(img, ksize, stride, pad, cover_all=cover_all,
                         dilate=dilate)


def col2im_nd(col, stride, pad, dims, dilate=1):
    """:func:`col2im_nd_cpu`."""
    return col2im_nd_cpu(col, stride, pad, dims, dilate)
