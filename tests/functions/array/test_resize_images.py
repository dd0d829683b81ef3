import math

import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


def _src(i, in_size, out_size, align_corners):
    if align_corners:
        return i * (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    return min(max((i + 0.5) * in_size / out_size - 0.5, 0.0), in_size - 1)


def _naive(x, out_h, out_w, mode, align_corners):
    n, c, h, w = x.shape
    y = numpy.zeros((n, c, out_h, out_w))
    for b in range(n):
        for ch in range(c):
            for i in range(out_h):
                for j in range(out_w):
                    if mode == 'nearest':
                        r = min(int(math.floor(i * h / out_h)), h - 1)
                        s = min(int(math.floor(j * w / out_w)), w - 1)
                        y[b, ch, i, j] = x[b, ch, r, s]
                        continue
                    v = _src(i, h, out_h, align_corners)
                    u = _src(j, w, out_w, align_corners)
                    v0, u0 = int(math.floor(v)), int(math.floor(u))
                    v1, u1 = min(v0 + 1, h - 1), min(u0 + 1, w - 1)
                    dv, du = v - v0, u - u0
                    y[b, ch, i, j] = (
                        x[b, ch, v0, u0] * (1 - dv) * (1 - du) +
                        x[b, ch, v0, u1] * (1 - dv) * du +
                        x[b, ch, v1, u0] * dv * (1 - du) +
                        x[b, ch, v1, u1] * dv * du)
    return y


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('in_hw,out_hw', [
    ((3, 4), (5, 7)), ((5, 6), (2, 3)), ((3, 3), (1, 1)), ((1, 2), (3, 1)),
    ((4, 4), (4, 4))])
@pytest.mark.parametrize('mode,align_corners', [
    ('bilinear', True), ('bilinear', False), ('nearest', True)])
def test_forward_backward(dtype, in_hw, out_hw, mode, align_corners):
    rng = numpy.random.RandomState(0)
    x = rng.uniform(-1, 1, (2, 2) + in_hw).astype(dtype)
    y = F.resize_images(x, out_hw, mode=mode, align_corners=align_corners)
    expected = _naive(x, out_hw[0], out_hw[1], mode, align_corners)
    assert y.dtype == dtype and y.shape == (2, 2) + out_hw
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-6)

    def f(x):
        return F.resize_images(x, out_hw, mode, align_corners)
    gy = rng.uniform(-1, 1, (2, 2) + out_hw)
    x64 = x.astype(numpy.float64)
    gradient_check.check_backward(f, (x64,), gy)
    gradient_check.check_double_backward(
        f, (x64,), gy, rng.uniform(-1, 1, x.shape))


def test_default_is_bilinear_align_corners():
    x = numpy.arange(6.).reshape(1, 1, 2, 3)
    numpy.testing.assert_allclose(
        F.resize_images(x, (3, 5)).array, _naive(x, 3, 5, 'bilinear', True))
    # Corners are preserved with align_corners=True.
    y = F.resize_images(x, (4, 7)).array[0, 0]
    assert (y[0, 0], y[0, -1], y[-1, 0], y[-1, -1]) == (0., 2., 3., 5.)


def test_nearest_ignores_align_corners():
    x = numpy.random.RandomState(2).uniform(size=(1, 2, 3, 5))
    a = F.resize_images(x, (7, 2), 'nearest', True).array
    b = F.resize_images(x, (7, 2), 'nearest', False).array
    numpy.testing.assert_array_equal(a, b)


def test_bad_inputs():
    with pytest.raises(type_check.InvalidType, match='ResizeImages'):
        F.resize_images(numpy.zeros((2, 3, 4)), (2, 2))
    with pytest.raises(type_check.InvalidType, match='ResizeImages'):
        F.resize_images(numpy.zeros((1, 1, 2, 2), numpy.int32), (2, 2))
    with pytest.raises(ValueError, match='resize_images'):
        F.resize_images(numpy.zeros((1, 1, 2, 2)), (2, 2), mode='bicubic')
    with pytest.raises(ValueError, match='resize_images'):
        F.resize_images(numpy.zeros((1, 1, 2, 2)), (0, 2))
    with pytest.raises(ValueError, match='resize_images'):
        F.resize_images(numpy.zeros((1, 1, 2, 2)), 3)
