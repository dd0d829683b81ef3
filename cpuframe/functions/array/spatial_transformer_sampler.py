"""Bilinear sampling of an image at the points of a grid."""
from cpuframe import backend
from cpuframe.utils import type_check
from cpuframe.variable import as_variable


def spatial_transformer_sampler(x, grid, **kwargs):
    """2D spatial transformer sampler.

    Samples ``x`` bilinearly at the source coordinates of ``grid``
    (typically from :func:`spatial_transformer_grid`).  ``grid[:, 0]`` is
    the width coordinate and ``grid[:, 1]`` the height one, both in
    ``[-1, 1]`` over the pixel centers: ``u = (x_s + 1) * (w - 1) / 2``.
    Points outside the image read zeros: the image is padded by one zero
    pixel on each side and the coordinates are clipped to the padded
    image, as in Chainer.

    Built of differentiable functions (with respect to both ``x`` and
    ``grid``), so every order of gradient works.

    See: `Spatial Transformer Networks
    <https://arxiv.org/abs/1506.02025>`_

    Args:
        x (Variable or array): Input image ``(n, c, h, w)``.
        grid (Variable or array): ``(n, 2, out_h, out_w)`` of ``x``'s dtype.

    Returns:
        Variable of shape ``(n, c, out_h, out_w)``.

    >>> x = np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2)
    >>> grid = np.zeros((1, 2, 1, 1), np.float32)  # the center
    >>> F.spatial_transformer_sampler(x, grid).array
    array([[[[1.5]]]], dtype=float32)
    """
    from cpuframe.functions.array.get_item import get_item
    from cpuframe.functions.array.pad import pad
    from cpuframe.functions.array.reshape import reshape
    from cpuframe.functions.array.transpose import transpose
    from cpuframe.functions.math.clip import clip
    if kwargs:
        raise TypeError('spatial_transformer_sampler() got unexpected '
                        'keyword argument(s) {}'.format(
                            ', '.join(sorted(kwargs))))
    x, grid = as_variable(x), as_variable(grid)
    if x.dtype.kind != 'f' or x.ndim != 4 or grid.ndim != 4 or \
            grid.dtype != x.dtype or grid.shape[1] != 2 or \
            grid.shape[0] != x.shape[0]:
        raise type_check.InvalidType(
            'x: float (n, c, h, w); grid: (n, 2, out_h, out_w) of x\'s dtype',
            'spatial_transformer_sampler: x {} {}, grid {} {}'.format(
                x.shape, x.dtype, grid.shape, grid.dtype))
    xp = backend.get_array_module(x.array)
    n, c, h, w = x.shape
    out_h, out_w = grid.shape[2:]
    p = out_h * out_w
    dtype = x.dtype.type
    g = reshape(grid, (n, 2, p))
    gu, gv = (reshape(get_item(g, (slice(None), k)), (n * p,))
              for k in (0, 1))
    # In the zero-padded image: pixel centers at 1 .. w, padding at 0, w + 1.
    u = clip(gu * dtype((w - 1) / 2) + dtype((w - 1) / 2 + 1), 0.0,
             float(w + 1))
    v = clip(gv * dtype((h - 1) / 2) + dtype((h - 1) / 2 + 1), 0.0,
             float(h + 1))
    u0 = xp.clip(xp.floor(u.array).astype(xp.int64), 0, w)
    v0 = xp.clip(xp.floor(v.array).astype(xp.int64), 0, h)
    u1, v1 = u0 + 1, v0 + 1
    du0, du1 = u - u0.astype(x.dtype), u1.astype(x.dtype) - u
    dv0, dv1 = v - v0.astype(x.dtype), v1.astype(x.dtype) - v
    # (n * (h + 2) * (w + 2), c): one row per padded pixel.
    x_pad = pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), 'constant')
    rows = reshape(transpose(x_pad, (0, 2, 3, 1)), (-1, c))
    base = xp.repeat(xp.arange(n) * ((h + 2) * (w + 2)), p)

    def at(vi, ui):
        return get_item(rows, base + vi * (w + 2) + ui)

    def weighted(wu, wv, pixels):
        wt = reshape(wu * wv, (n * p, 1))
        return pixels * wt

    y = weighted(du1, dv1, at(v0, u0)) + weighted(du0, dv1, at(v0, u1)) + \
        weighted(du1, dv0, at(v1, u0)) + weighted(du0, dv0, at(v1, u1))
    return transpose(reshape(y, (n, out_h, out_w, c)), (0, 3, 1, 2))
