"""Deformable 2-D convolution with given offsets (Dai et al., 2017)."""
import numpy

from cpuframe import backend
from cpuframe.utils import type_check
from cpuframe.utils.conv import pair
from cpuframe.variable import as_variable


def _check(x, offset, W, b):
    name = 'deformable_convolution_2d_sampler'

    def fail(expect, actual):
        raise type_check.InvalidType(expect, '{}: {}'.format(name, actual))

    if x.ndim != 4 or x.dtype.kind != 'f':
        fail('x: a float array (n, c_I, h, w)',
             'x {} {}'.format(x.shape, x.dtype))
    if W.ndim != 4 or W.dtype != x.dtype or W.shape[1] != x.shape[1]:
        fail('W: (c_O, c_I={}, k_H, k_W) of dtype {}'.format(
            x.shape[1], x.dtype), 'W {} {}'.format(W.shape, W.dtype))
    kh, kw = W.shape[2:]
    if offset.ndim != 4 or offset.dtype != x.dtype or \
            offset.shape[0] != x.shape[0] or \
            offset.shape[1] != 2 * kh * kw:
        fail('offset: ({}, 2 * k_H * k_W = {}, h_O, w_O) of dtype {}'.format(
            x.shape[0], 2 * kh * kw, x.dtype),
            'offset {} {}'.format(offset.shape, offset.dtype))
    if b is not None and (b.shape != (W.shape[0],) or b.dtype != x.dtype):
        fail('b: ({},) of dtype {}'.format(W.shape[0], x.dtype),
             'b {} {}'.format(b.shape, b.dtype))


def deformable_convolution_2d_sampler(x, offset, W, b=None, stride=1, pad=0):
    """Two-dimensional deformable convolution with given offsets.

    The convolution of ``W`` over ``x`` in which every filter tap reads
    the input at its regular place moved by an offset of its own, sampled
    bilinearly (Dai et al., `Deformable Convolutional Networks
    <https://arxiv.org/abs/1703.06211>`_).  With ``x_pad`` the input
    zero-padded by ``pad``, kernel tap ``k = i * k_W + j`` and output
    position ``(p, q)``:

    .. math::
        y[n, o, p, q] = b[o] + \\sum_{c, i, j} W[o, c, i, j] \\,
            x_{pad}[n, c, s_Y p + i + \\Delta y, s_X q + j + \\Delta x],

    where :math:`\\Delta x = \\mathrm{offset}[n, k, p, q]` and
    :math:`\\Delta y = \\mathrm{offset}[n, k_H k_W + k, p, q]` (the first
    ``k_H * k_W`` channels of ``offset`` are the horizontal offsets, the
    rest the vertical ones, as in Chainer), and a fractional position reads
    the bilinear interpolation of its four neighbours, those outside
    ``x_pad`` counting as zeros.  With zero offsets it is
    :func:`convolution_2d`.

    The output size is the offset's: ``(n, c_O, h_O, w_O)`` with
    ``h_O = (h + 2 p_H - k_H) // s_Y + 1`` when the offsets come from a
    convolution with the same ``ksize``, ``stride`` and ``pad``.

    Built from differentiable functions (gathers, products and a matrix
    product), so it has gradients of every order with respect to ``x``,
    ``offset``, ``W`` and ``b``; the derivative with respect to an offset
    is the one of the bilinear interpolation (taken from the right at
    integer positions).

    Args:
        x: input ``(n, c_I, h, w)``.
        offset: ``(n, 2 * k_H * k_W, h_O, w_O)``.
        W: filter ``(c_O, c_I, k_H, k_W)``.
        b: bias ``(c_O,)`` or None.
        stride (int or pair): ``s_Y, s_X``.
        pad (int or pair): ``p_H, p_W``.

    Returns:
        Variable ``(n, c_O, h_O, w_O)`` of ``x``'s dtype.

    >>> x = np.random.uniform(0, 1, (2, 3, 4, 7)).astype(np.float32)
    >>> offset = np.random.uniform(
    ...     0, 1, (2, 2 * 3 * 3, 2, 5)).astype(np.float32)
    >>> W = np.random.uniform(0, 1, (4, 3, 3, 3)).astype(np.float32)
    >>> F.deformable_convolution_2d_sampler(x, offset, W).shape
    (2, 4, 2, 5)
    """
    from cpuframe.functions.array.get_item import get_item
    from cpuframe.functions.array.pad import pad as pad_fn
    from cpuframe.functions.array.reshape import reshape
    from cpuframe.functions.array.transpose import transpose
    from cpuframe.functions.connection.linear import linear

    x, offset, W = as_variable(x), as_variable(offset), as_variable(W)
    if b is not None:
        b = as_variable(b)
    _check(x, offset, W, b)
    sy, sx = pair(stride, 'deformable_convolution_2d_sampler: stride')
    ph, pw = pair(pad, 'deformable_convolution_2d_sampler: pad')
    xp = backend.get_array_module(x.array)
    n, c, h, w = x.shape
    out_c, _, kh, kw = W.shape
    out_h, out_w = offset.shape[2:]
    K, P = kh * kw, out_h * out_w
    hp, wp = h + 2 * ph, w + 2 * pw
    dtype = x.dtype

    # the sampling positions, (n, K, P), in x_pad's pixel coordinates
    off = reshape(offset, (n, 2, K, P))
    dx = reshape(get_item(off, (slice(None), 0)), (n * K * P,))
    dy = reshape(get_item(off, (slice(None), 1)), (n * K * P,))
    tap_y, tap_x = numpy.divmod(numpy.arange(K), kw)
    out_y, out_x = numpy.divmod(numpy.arange(P), out_w)
    base_y = tap_y[:, None] + sy * out_y[None, :]           # (K, P)
    base_x = tap_x[:, None] + sx * out_x[None, :]
    base_y = numpy.broadcast_to(base_y, (n, K, P)).ravel()
    base_x = numpy.broadcast_to(base_x, (n, K, P)).ravel()
    off_y = backend.get_device('@numpy').send(dy.array).astype(numpy.float64)
    off_x = backend.get_device('@numpy').send(dx.array).astype(numpy.float64)
    # the top-left neighbour, and the fractions as Variables so that the
    # offsets get their gradient: frac = offset - (corner - base)
    y0 = numpy.floor(base_y + off_y).astype(numpy.int64)
    x0 = numpy.floor(base_x + off_x).astype(numpy.int64)
    fy = dy - xp.asarray((y0 - base_y).astype(dtype))
    fx = dx - xp.asarray((x0 - base_x).astype(dtype))

    # x_pad as rows of channels: (n * hp * wp, c)
    x_pad = pad_fn(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), 'constant')
    rows = reshape(transpose(x_pad, (0, 2, 3, 1)), (n * hp * wp, c))
    batch = numpy.repeat(numpy.arange(n), K * P)
    sampled = None
    for cy, wy in ((0, 1 - fy), (1, fy)):
        for cx, wx in ((0, 1 - fx), (1, fx)):
            yy, xx = y0 + cy, x0 + cx
            inside = (yy >= 0) & (yy < hp) & (xx >= 0) & (xx < wp)
            index = (batch * hp + numpy.clip(yy, 0, hp - 1)) * wp + \
                numpy.clip(xx, 0, wp - 1)
            weight = wy * wx * xp.asarray(inside.astype(dtype))
            term = get_item(rows, xp.asarray(index)) * \
                reshape(weight, (n * K * P, 1))
            sampled = term if sampled is None else sampled + term

    # columns (n * P, c * K) against W as (c_O, c * K)
    cols = reshape(transpose(reshape(sampled, (n, K, P, c)), (0, 2, 3, 1)),
                   (n * P, c * K))
    y = linear(cols, reshape(W, (out_c, c * K)), b)
    return transpose(reshape(y, (n, out_h, out_w, out_c)), (0, 3, 1, 2))
