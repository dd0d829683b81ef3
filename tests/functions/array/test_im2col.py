import itertools

import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


def _pair(v):
    return v if isinstance(v, tuple) else (v, v)


def _naive_im2col(x, ksize, stride, pad, cover_all, dilate):
    kh, kw = _pair(ksize)
    sy, sx = _pair(stride)
    ph, pw = _pair(pad)
    dy, dx = _pair(dilate)
    n, c, h, w = x.shape
    ekh, ekw = (kh - 1) * dy + 1, (kw - 1) * dx + 1
    extra_h = sy - 1 if cover_all else 0
    extra_w = sx - 1 if cover_all else 0
    oh = (h + 2 * ph - ekh + extra_h) // sy + 1
    ow = (w + 2 * pw - ekw + extra_w) // sx + 1
    y = numpy.zeros((n, c * kh * kw, oh, ow), x.dtype)
    for ci, ky, kx, i, j in itertools.product(range(c), range(kh), range(kw),
                                              range(oh), range(ow)):
        r = i * sy + ky * dy - ph
        q = j * sx + kx * dx - pw
        if 0 <= r < h and 0 <= q < w:
            y[:, (ci * kh + ky) * kw + kx, i, j] = x[:, ci, r, q]
    return y


PARAMS = [
    # ksize, stride, pad, cover_all, dilate
    (2, 1, 0, False, 1),
    (3, 2, 1, False, 1),
    ((2, 3), (1, 2), (1, 0), False, 1),
    (2, 2, 0, True, 1),
    ((3, 2), 3, (0, 1), True, 1),
    (2, 1, 1, False, 2),
    ((2, 2), (2, 1), 0, False, (1, 2)),
]


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('ksize,stride,pad,cover_all,dilate', PARAMS)
def test_forward(dtype, ksize, stride, pad, cover_all, dilate):
    x = numpy.random.RandomState(0).uniform(-1, 1, (2, 3, 5, 6)).astype(dtype)
    y = F.im2col(x, ksize, stride=stride, pad=pad, cover_all=cover_all,
                 dilate=dilate)
    expected = _naive_im2col(x, ksize, stride, pad, cover_all, dilate)
    assert y.dtype == dtype and y.shape == expected.shape
    numpy.testing.assert_array_equal(y.array, expected)


def test_defaults_and_positional_order():
    x = numpy.arange(2 * 3 * 4 * 4, dtype=numpy.float64).reshape(2, 3, 4, 4)
    numpy.testing.assert_array_equal(
        F.im2col(x, 2).array, _naive_im2col(x, 2, 1, 0, False, 1))
    # im2col(x, ksize, stride, pad, cover_all, dilate)
    numpy.testing.assert_array_equal(
        F.im2col(x, 2, 2, 1, True, 1).array,
        _naive_im2col(x, 2, 2, 1, True, 1))


@pytest.mark.parametrize('ksize,stride,pad,cover_all,dilate', PARAMS)
def test_backward(ksize, stride, pad, cover_all, dilate):
    rng = numpy.random.RandomState(1)
    x = rng.uniform(-1, 1, (2, 2, 5, 4))

    def f(x):
        return F.im2col(x, ksize, stride, pad, cover_all, dilate)
    shape = _naive_im2col(x, ksize, stride, pad, cover_all, dilate).shape
    gy = rng.uniform(-1, 1, shape)
    gradient_check.check_backward(f, (x,), gy)
    gradient_check.check_double_backward(f, (x,), gy,
                                         (rng.uniform(-1, 1, x.shape),))


def test_bad_inputs():
    with pytest.raises(type_check.InvalidType, match='Im2Col'):
        F.im2col(numpy.zeros((2, 3, 4)), 2)
    with pytest.raises(type_check.InvalidType, match='Im2Col'):
        F.im2col(numpy.zeros((1, 1, 4, 4), numpy.int32), 2)
    with pytest.raises(type_check.InvalidType, match='output size'):
        F.im2col(numpy.zeros((1, 1, 2, 2)), 3)
    with pytest.raises(ValueError, match='im2col'):
        F.im2col(numpy.zeros((1, 1, 4, 4)), 2, stride=0)
    with pytest.raises(ValueError, match='im2col'):
        F.im2col(numpy.zeros((1, 1, 4, 4)), (2, 2, 2))
