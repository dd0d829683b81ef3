"""The intel64 parity tests of this op: tests/backends/intel64/test_pooling.py
and test_edge_values.py.
"""
import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.functions.pooling.average_pooling_2d import AveragePooling2D
from cpuframe.functions.pooling.average_pooling_nd import AveragePoolingNDGrad
from cpuframe.utils import type_check


def _naive(x, k, s, p):
    """Window means over the zero-padded input, divided by kh * kw."""
    (kh, kw), (sy, sx), (ph, pw) = k, s, p
    n, c, h, w = x.shape
    oh, ow = (h + 2 * ph - kh) // sy + 1, (w + 2 * pw - kw) // sx + 1
    y = numpy.zeros((n, c, oh, ow), numpy.float64)
    for i in range(oh):
        for j in range(ow):
            for a in range(kh):
                for e in range(kw):
                    r, q = i * sy + a - ph, j * sx + e - pw
                    if 0 <= r < h and 0 <= q < w:
                        y[:, :, i, j] += x[:, :, r, q]
    return y / (kh * kw)


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('ksize', [2, 3, (2, 3)])
@pytest.mark.parametrize('stride', [1, 2, None])
@pytest.mark.parametrize('pad', [0, 1, (1, 0)])
def test_forward(dtype, ksize, stride, pad):
    x = numpy.random.RandomState(0).uniform(-1, 1, (2, 3, 5, 6)).astype(dtype)
    k = ksize if isinstance(ksize, tuple) else (ksize, ksize)
    s = k if stride is None else (stride, stride)
    p = pad if isinstance(pad, tuple) else (pad, pad)
    y = F.average_pooling_2d(cpuframe.Variable(x), ksize, stride, pad)
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, _naive(x, k, s, p),
                                  rtol=1e-5 if dtype == numpy.float32 else 1e-12)


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('ksize', [2, 3])
@pytest.mark.parametrize('stride', [1, 2, None])
@pytest.mark.parametrize('pad', [0, 1])
def test_backward(dtype, ksize, stride, pad):
    rng = numpy.random.RandomState(1)
    x = rng.uniform(-1, 1, (2, 2, 5, 4)).astype(dtype)
    y = F.average_pooling_2d(x, ksize, stride, pad)
    gy = rng.uniform(-1, 1, y.shape).astype(dtype)
    ggx = rng.uniform(-1, 1, x.shape).astype(dtype)

    def f(x):
        return F.average_pooling_2d(x, ksize, stride, pad)
    gradient_check.check_backward(f, x, gy, **_tols(dtype))
    gradient_check.check_double_backward(f, x, gy, ggx, **_tols(dtype))


def test_grad_node_double_backward():
    rng = numpy.random.RandomState(2)
    x = rng.normal(size=(1, 2, 5, 5))
    pool = AveragePooling2D(3, 2, 1)
    y, = pool.apply((cpuframe.Variable(x),))
    gy = rng.normal(size=y.shape)
    ggx = rng.normal(size=x.shape)
    gggy = rng.normal(size=y.shape)
    gradient_check.check_double_backward(
        lambda g: AveragePoolingNDGrad(pool).apply((g,))[0], gy, ggx, gggy)


def test_padding_counts_in_the_mean():
    x = numpy.ones((1, 1, 2, 2), numpy.float32)
    y = F.average_pooling_2d(x, 2, 1, 1)
    numpy.testing.assert_allclose(
        y.array[0, 0], [[.25, .5, .25], [.5, 1., .5], [.25, .5, .25]])


def test_wrong_ndim():
    with pytest.raises(type_check.InvalidType, match='AveragePooling2D'):
        F.average_pooling_2d(numpy.zeros((1, 4, 4), numpy.float32), 2)


def test_empty_output():
    with pytest.raises(type_check.InvalidType, match='AveragePooling2D'):
        F.average_pooling_2d(numpy.zeros((1, 1, 2, 2), numpy.float32), 3)


def test_bad_ksize():
    with pytest.raises(ValueError, match='AveragePooling2D'):
        F.average_pooling_2d(numpy.zeros((1, 1, 4, 4), numpy.float32), 0)
