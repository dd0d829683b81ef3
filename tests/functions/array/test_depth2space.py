import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check


def _naive_d2s(x, r):
    b, c, h, w = x.shape
    oc = c // (r * r)
    out = numpy.empty((b, oc, h * r, w * r), x.dtype)
    for n in range(b):
        for ch in range(c):
            i, rest = divmod(ch, r * oc)
            j, k = divmod(rest, oc)
            for y in range(h):
                for z in range(w):
                    out[n, k, y * r + i, z * r + j] = x[n, ch, y, z]
    return out


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('shape,r', [((2, 8, 2, 3), 2), ((1, 9, 2, 1), 3),
                                     ((1, 3, 2, 2), 1)])
def test_forward_backward(dtype, shape, r):
    rng = numpy.random.RandomState(0)
    x = rng.uniform(-1, 1, shape).astype(dtype)
    y = F.depth2space(x, r)
    exp = _naive_d2s(x, r)
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, exp)
    z = F.space2depth(exp, r)
    numpy.testing.assert_array_equal(z.array, x)
    x64 = x.astype(numpy.float64)
    gy = rng.uniform(-1, 1, exp.shape)
    gradient_check.check_backward(lambda x: F.depth2space(x, r), x64, gy)
    gradient_check.check_backward(lambda y: F.space2depth(y, r),
                                  exp.astype(numpy.float64), x64)
    gradient_check.check_double_backward(
        lambda x: F.depth2space(x, r) ** 2, x64, gy,
        rng.uniform(-1, 1, shape))


def test_bad_inputs():
    with pytest.raises(ValueError, match='depth2space'):
        F.depth2space(numpy.zeros((1, 6, 2, 2)), 2)
    with pytest.raises(ValueError, match='depth2space'):
        F.depth2space(numpy.zeros((4, 2, 2)), 2)
    with pytest.raises(ValueError, match='space2depth'):
        F.space2depth(numpy.zeros((1, 1, 3, 2)), 2)
    with pytest.raises(ValueError, match='space2depth'):
        F.space2depth(numpy.zeros((1, 1, 2, 2)), 0)
