import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


def _naive(x, idx, k, s, p, outs):
    """Put ``x[i, j]`` at window position ``idx[i, j]`` (overlaps add)."""
    kw, (sy, sx), (ph, pw) = k[1], s, p
    y = numpy.zeros(x.shape[:2] + tuple(outs), x.dtype)
    n, c, h, w = x.shape
    for b in range(n):
        for ch in range(c):
            for i in range(h):
                for j in range(w):
                    a, e = divmod(int(idx[b, ch, i, j]), kw)
                    r, q = i * sy + a - ph, j * sx + e - pw
                    if 0 <= r < outs[0] and 0 <= q < outs[1]:
                        y[b, ch, r, q] += x[b, ch, i, j]
    return y


def _pooled(shape, seed, ksize, stride, pad, cover_all):
    rng = numpy.random.RandomState(seed)
    x = rng.permutation(int(numpy.prod(shape))).reshape(shape).astype(
        numpy.float64)
    y, idx = F.max_pooling_2d(x, ksize, stride, pad, cover_all,
                              return_indices=True)
    return x, y.array, idx


@pytest.mark.parametrize('ksize', [2, 3])
@pytest.mark.parametrize('stride', [1, 2, None])
@pytest.mark.parametrize('pad', [0, 1])
@pytest.mark.parametrize('cover_all', [True, False])
def test_forward_restores_pooled_size(ksize, stride, pad, cover_all):
    x, y, idx = _pooled((2, 2, 5, 6), 0, ksize, stride, pad, cover_all)
    s = ksize if stride is None else stride
    up = F.upsampling_2d(y, idx, ksize, stride, pad, x.shape[2:], cover_all)
    assert up.shape == x.shape
    numpy.testing.assert_array_equal(
        up.array, _naive(y, idx, (ksize,) * 2, (s,) * 2, (pad,) * 2,
                         x.shape[2:]))


@pytest.mark.parametrize('ksize', [2, 3])
@pytest.mark.parametrize('pad', [0, 1])
def test_non_overlapping_round_trip(ksize, pad):
    # Each maximum goes back to where it came from; the rest is zero.
    x, y, idx = _pooled((1, 2, 6, 6), 1, ksize, None, pad, False)
    up = F.upsampling_2d(y, idx, ksize, pad=pad, outsize=(6, 6),
                         cover_all=False).array
    mask = up != 0
    numpy.testing.assert_array_equal(up[mask], x[mask])
    assert mask.sum() == y.size


@pytest.mark.parametrize('cover_all', [True, False])
def test_default_outsize(cover_all):
    x, y, idx = _pooled((1, 1, 4, 4), 2, 2, None, 0, cover_all)
    up = F.upsampling_2d(y, idx, 2, cover_all=cover_all)
    h = 2 * (y.shape[2] - 1) + 2 - (1 if cover_all else 0)
    assert up.shape == (1, 1, h, h)
    numpy.testing.assert_array_equal(
        up.array, _naive(y, idx, (2, 2), (2, 2), (0, 0), (h, h)))


@pytest.mark.parametrize('ksize', [2, 3])
@pytest.mark.parametrize('stride', [1, 2, None])
@pytest.mark.parametrize('pad', [0, 1])
def test_backward(ksize, stride, pad):
    x, y, idx = _pooled((1, 2, 5, 4), 3, ksize, stride, pad, True)
    rng = numpy.random.RandomState(4)

    def f(v):
        return F.upsampling_2d(v, idx, ksize, stride, pad, x.shape[2:])
    gy = rng.uniform(-1, 1, x.shape)
    ggx = rng.uniform(-1, 1, y.shape)
    gradient_check.check_backward(f, y, gy)
    gradient_check.check_double_backward(f, y, gy, ggx)


def test_indexes_shape_mismatch():
    with pytest.raises(type_check.InvalidType, match='Upsampling2D'):
        F.upsampling_2d(numpy.zeros((1, 1, 2, 2), numpy.float32),
                        numpy.zeros((1, 1, 2, 3), numpy.int32), 2)


def test_indexes_out_of_range():
    with pytest.raises(ValueError, match='Upsampling2D'):
        F.upsampling_2d(numpy.zeros((1, 1, 2, 2), numpy.float32),
                        numpy.full((1, 1, 2, 2), 4, numpy.int32), 2)


def test_float_indexes():
    with pytest.raises(TypeError, match='Upsampling2D'):
        F.upsampling_2d(numpy.zeros((1, 1, 2, 2), numpy.float32),
                        numpy.zeros((1, 1, 2, 2), numpy.float32), 2)


def test_outsize_mismatch():
    with pytest.raises(type_check.InvalidType, match='Upsampling2D'):
        F.upsampling_2d(numpy.zeros((1, 1, 2, 2), numpy.float32),
                        numpy.zeros((1, 1, 2, 2), numpy.int32), 2,
                        outsize=(9, 9))


def test_wrong_ndim():
    with pytest.raises(type_check.InvalidType, match='Upsampling2D'):
        F.upsampling_2d(numpy.zeros((1, 2, 2), numpy.float32),
                        numpy.zeros((1, 2, 2), numpy.int32), 2)
