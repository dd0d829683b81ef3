"""Output-size arithmetic shared by convolution, deconvolution and pooling."""
import numpy


def get_conv_outsize(size, k, s, p, cover_all=False, d=1):
    """Output length of a convolution or pooling along one axis.

    ``size`` input length, ``k`` kernel, ``s`` stride, ``p`` padding on each
    side, ``d`` dilation.  With ``cover_all`` the last window may run past
    the padded input so that every input element is covered (Chainer's
    rule: the extra ``s - 1`` is padding on the far side).
    """
    dk = k + (k - 1) * (d - 1)
    if cover_all:
        return (size + p * 2 - dk + s - 1) // s + 1
    return (size + p * 2 - dk) // s + 1


def get_deconv_outsize(size, k, s, p, cover_all=False, d=1):
    """Output length of a deconvolution (transposed convolution) along one axis."""
    dk = (k - 1) * d + 1
    if cover_all:
        return s * (size - 1) + dk - s + 1 - 2 * p
    return s * (size - 1) + dk - 2 * p


def as_tuple(x, n, name='argument'):
    """``x`` as an ``n``-tuple of ints (an int is repeated ``n`` times)."""
    # The usual cases first: an int, or already a tuple of n ints.
    t = type(x)
    if t is int:
        return (x,) * n
    if t is tuple and len(x) == n:
        for v in x:
            if type(v) is not int:
                break
        else:
            return x
    if isinstance(x, numpy.integer):
        return (int(x),) * n    # (a NumPy int has __getitem__ too)
    if hasattr(x, '__getitem__'):
        x = tuple(int(v) for v in x)
        if len(x) != n:
            raise ValueError('{}: expected {} values, got {}'.format(
                name, n, len(x)))
        return x
    return (int(x),) * n


def kept(cache, key, work_out, limit=256):
    """``cache[key]``, worked out by ``work_out(*key)`` on first use: the
    geometry of the few shapes a model's layers see on every step. Bounded
    (cleared when ``limit`` entries are there); its values are never changed,
    so threads may share them. A key with an unhashable part (an option
    given as a list) is worked out each time."""
    try:
        value = cache.get(key)
    except TypeError:
        return work_out(*key)
    if value is None:
        value = work_out(*key)
        if len(cache) >= limit:
            cache.clear()
        cache[key] = value
    return value


def pair(x, name='argument'):
    """``x`` as a pair of ints."""
    return as_tuple(x, 2, name)


# Chainer's 2-D im2col/col2im entry points, served by the N-d implementation
# in cpuframe.functions.connection._im2col (imported on use: that module
# imports this one).

def _require_cupy(name):
    raise RuntimeError('{} needs CuPy, which is not available: cpuframe '
                       'runs on CPUs; use {} instead'.format(
                           name, name.replace('_gpu', '_cpu')))


def im2col_cpu(img, kh, kw, sy, sx, ph, pw, pval=0, cover_all=False, dy=1,
               dx=1, out_h=None, out_w=None):
    """Columns ``(n, c, kh, kw, out_h, out_w)`` of image ``(n, c, h, w)``.

    ``col[n, c, j, i, y, x]`` is ``img[n, c, y*sy + j*dy - ph,
    x*sx + i*dx - pw]``, or ``pval`` outside the image.  ``out_h`` and
    ``out_w`` default to the convolution output size; smaller ones crop.
    """
    from cpuframe.functions.connection import _im2col
    h, w = img.shape[2:]
    if out_h is None:
        out_h = get_conv_outsize(h, kh, sy, ph, cover_all, dy)
    if out_w is None:
        out_w = get_conv_outsize(w, kw, sx, pw, cover_all, dx)
    if out_h <= 0:
        raise AssertionError('Height in the output should be positive.')
    if out_w <= 0:
        raise AssertionError('Width in the output should be positive.')
    # cover_all pads the far side by stride - 1, as Chainer's does.
    col = _im2col.im2col(img, (kh, kw), (sy, sx), (ph, pw), (dy, dx),
                         cover_all=True, pval=pval)
    if col.shape[4] < out_h or col.shape[5] < out_w:
        raise ValueError('im2col_cpu: out_h/out_w {} exceed the padded '
                         'image'.format((out_h, out_w)))
    return numpy.array(col[..., :out_h, :out_w])


def col2im_cpu(col, sy, sx, ph, pw, h, w, dy=1, dx=1):
    """The adjoint of :func:`im2col_cpu`: sum the columns back into an
    image ``(n, c, h, w)``."""
    from cpuframe.functions.connection import _im2col
    return _im2col.col2im(col, (sy, sx), (ph, pw), (h, w), (dy, dx))


def im2col_gpu(*args, **kwargs):
    _require_cupy('im2col_gpu')


def col2im_gpu(*args, **kwargs):
    _require_cupy('col2im_gpu')


def im2col(img, kh, kw, sy, sx, ph, pw, cover_all=False, dy=1, dx=1,
           out_h=None, out_w=None):
    """:func:`im2col_cpu` (with ``pval=0``) for the array's device."""
    return im2col_cpu(img, kh, kw, sy, sx, ph, pw, cover_all=cover_all,
                      dy=dy, dx=dx, out_h=out_h, out_w=out_w)


def col2im(col, sy, sx, ph, pw, h, w, dy=1, dx=1):
    """:func:`col2im_cpu` for the array's device."""
    return col2im_cpu(col, sy, sx, ph, pw, h, w, dy=dy, dx=dx)
