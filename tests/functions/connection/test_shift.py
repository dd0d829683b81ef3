"""F.shift (Chainer's functions.connection.shift)."""
import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check


def _reference(x, kh, kw, dy, dx):
    n, c, h, w = x.shape
    groups = kh * kw
    size = c // groups
    y = numpy.zeros_like(x)
    for ch in range(c):
        i = min(ch // size, groups - 1)
        g = i
        if i == (groups - 1) // 2:
            g = groups - 1
        elif i == groups - 1:
            g = (groups - 1) // 2
        oy = (g // kw - kh // 2) * dy
        ox = (g % kw - kw // 2) * dx
        for a in range(h):
            for b in range(w):
                if 0 <= a - oy < h and 0 <= b - ox < w:
                    y[:, ch, a, b] = x[:, ch, a - oy, b - ox]
    return y


@pytest.mark.parametrize('c,ksize,dilate', [
    (9, 3, 1), (11, 3, 1), (18, (3, 1), (2, 1)), (25, 5, 2), (9, (1, 3), -1),
])
def test_shift_matches_reference(c, ksize, dilate):
    x = numpy.random.RandomState(0).randn(2, c, 5, 6).astype(numpy.float32)
    kh, kw = ksize if isinstance(ksize, tuple) else (ksize, ksize)
    dy, dx = dilate if isinstance(dilate, tuple) else (dilate, dilate)
    y = F.shift(x, ksize, dilate)
    assert y.shape == x.shape and y.dtype == numpy.float32
    numpy.testing.assert_array_equal(y.array, _reference(x, kh, kw, dy, dx))


def test_shift_center_group_is_the_last_and_stays():
    x = numpy.ones((1, 9, 3, 3), numpy.float32)
    y = F.shift(x).array
    # The last group keeps every pixel; the first moves by (-1, -1).
    assert (y[0, 8] == 1).all()
    assert y[0, 0, 2, :].sum() == 0 and y[0, 0, :, 2].sum() == 0


def test_shift_gradients():
    rs = numpy.random.RandomState(1)
    x = rs.randn(1, 10, 4, 4)
    gy = rs.randn(1, 10, 4, 4)
    ggx = rs.randn(1, 10, 4, 4)

    def f(x):
        return F.shift(x, ksize=3, dilate=(1, 2))

    gradient_check.check_backward(f, x, gy, dtype=numpy.float64)
    gradient_check.check_double_backward(f, x, gy, ggx, dtype=numpy.float64)


def test_shift_errors():
    with pytest.raises(ValueError, match='kh must be odd'):
        F.shift(numpy.ones((1, 9, 2, 2), numpy.float32), ksize=(2, 3))
    from cpuframe.utils import type_check
    with pytest.raises(type_check.InvalidType):
        F.shift(numpy.ones((1, 8, 2, 2), numpy.float32))
