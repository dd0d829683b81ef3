import itertools

import numpy
import pytest

from cpuframe.functions.connection._im2col import col2im, im2col
from cpuframe.utils.conv import get_conv_outsize


@pytest.mark.parametrize('stride,pad,dilate,cover_all', list(itertools.product(
    [1, 2, (1, 3)], [0, 1, (2, 0)], [1, (2, 1)], [False, True, (True, False)])))
def test_im2col_matches_loops(stride, pad, dilate, cover_all):
    rng = numpy.random.RandomState(0)
    x = rng.uniform(-1, 1, (2, 3, 5, 7))
    ks = (3, 2)
    st = stride if isinstance(stride, tuple) else (stride, stride)
    pd = pad if isinstance(pad, tuple) else (pad, pad)
    dl = dilate if isinstance(dilate, tuple) else (dilate, dilate)
    ca = cover_all if isinstance(cover_all, tuple) else (cover_all,) * 2
    col = im2col(x, ks, stride, pad, dilate, cover_all)
    out = tuple(get_conv_outsize(h, k, s, p, c, d) for h, k, s, p, c, d in
                zip(x.shape[2:], ks, st, pd, ca, dl))
    assert col.shape == (2, 3) + ks + out
    for ky, kx, i, j in itertools.product(range(ks[0]), range(ks[1]),
                                          range(out[0]), range(out[1])):
        r = i * st[0] + ky * dl[0] - pd[0]
        c = j * st[1] + kx * dl[1] - pd[1]
        inside = 0 <= r < x.shape[2] and 0 <= c < x.shape[3]
        expected = x[:, :, r, c] if inside else 0.0
        numpy.testing.assert_array_equal(col[:, :, ky, kx, i, j], expected)
    # col2im is the adjoint of im2col
    g = rng.uniform(-1, 1, col.shape)
    back = col2im(g, stride, pad, x.shape[2:], dilate)
    assert back.shape == x.shape and back.flags.c_contiguous
    numpy.testing.assert_allclose((col * g).sum(), (x * back).sum(),
                                  rtol=1e-12)


def test_pad_value_and_views():
    x = numpy.arange(4.0).reshape(1, 1, 2, 2)
    col = im2col(x, 2, 1, 1, pval=-numpy.inf)
    assert col.shape == (1, 1, 2, 2, 3, 3)
    assert col[0, 0, 0, 0, 0, 0] == -numpy.inf
    assert col[0, 0, 1, 1, 0, 0] == 0.0
    assert not col.flags.writeable
    # no padding: the columns view x itself
    assert numpy.shares_memory(im2col(x, 1, 1, 0), x)


def test_three_dimensions():
    rng = numpy.random.RandomState(1)
    x = rng.uniform(-1, 1, (1, 2, 3, 4, 5))
    col = im2col(x, (2, 1, 3), (1, 2, 1), (0, 1, 1))
    assert col.shape == (1, 2, 2, 1, 3, 2, 3, 5)
    numpy.testing.assert_array_equal(col[0, :, 1, 0, 2, 1, 1, 3],
                                     x[0, :, 2, 1, 4])
    g = rng.uniform(-1, 1, col.shape)
    back = col2im(g, (1, 2, 1), (0, 1, 1), x.shape[2:])
    numpy.testing.assert_allclose((col * g).sum(), (x * back).sum())


def test_geometry_kept_per_shape_and_options():
    # im2col keeps its geometry per (shape, options): a second image of
    # another shape, options given as lists (not kept), a wrong option
    # length after a good call, and a full cache all give what a fresh
    # computation gives.
    from cpuframe.functions.connection import _im2col
    rng = numpy.random.RandomState(2)
    a = rng.uniform(-1, 1, (1, 2, 4, 4))
    b = rng.uniform(-1, 1, (1, 2, 6, 3))
    first = im2col(a, 2, 1, 1)
    numpy.testing.assert_array_equal(im2col(a, 2, 1, 1), first)
    col = im2col(b, 2, 1, 1)
    assert col.shape == (1, 2, 2, 2, 7, 4)
    numpy.testing.assert_array_equal(col[0, :, 1, 1, 5, 2], b[0, :, 5, 2])
    numpy.testing.assert_array_equal(col[0, :, 0, 0, 0, 0], 0.0)
    numpy.testing.assert_array_equal(im2col(b, [2, 2], [1, 1], [1, 1]), col)
    with pytest.raises(ValueError, match='pad'):
        im2col(b, 2, 1, (1, 1, 1))
    for h in range(1, _im2col._GEOMETRY_MAX + 10):
        im2col(numpy.zeros((1, 1, h, 2)), 1, 1, 0)
    assert len(_im2col._GEOMETRY) <= _im2col._GEOMETRY_MAX
    numpy.testing.assert_array_equal(im2col(a, 2, 1, 1), first)


def test_col2im_geometry_kept_per_shape_and_options():
    # col2im stays im2col's adjoint when its geometry is kept: two column
    # shapes with the same options, options as lists (not kept), and two
    # pads that give columns of one shape (6 wide, kernel 1, stride 4)
    rng = numpy.random.RandomState(4)
    for size, ksize, stride, pad in [
            ((4, 4), (3, 2), 2, 1), ((6, 3), (3, 2), 2, 1),
            ((4, 4), (3, 2), 1, 0), ((6, 3), (3, 2), [2, 1], [1, 1]),
            ((6, 6), (1, 1), 4, 0), ((6, 6), (1, 1), 4, 1)]:
        x = rng.uniform(-1, 1, (2, 3) + size)
        col = im2col(x, ksize, stride, pad)
        g = rng.uniform(-1, 1, col.shape)
        back = col2im(g, stride, pad, size)
        assert back.shape == x.shape
        numpy.testing.assert_allclose((col * g).sum(), (x * back).sum(),
                                      rtol=1e-12)


def test_numpy_integer_options():
    # a NumPy integer is an int option (it has __getitem__ too); the answer
    # does not depend on what was computed before
    from cpuframe.utils.conv import as_tuple
    assert as_tuple(numpy.int64(3), 2) == (3, 3)
    assert as_tuple(numpy.int32(2), 3, 'pad') == (2, 2, 2)
    x = numpy.arange(18.0).reshape(1, 2, 3, 3)
    numpy.testing.assert_array_equal(
        im2col(x, numpy.int64(2), numpy.int64(1), numpy.int64(1)),
        im2col(x, 2, 1, 1))
