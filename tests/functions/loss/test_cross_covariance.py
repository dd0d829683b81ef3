import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check


def _reference(y, z):
    n = len(y)
    c = numpy.zeros((y.shape[1], z.shape[1]))
    ym, zm = y.mean(0), z.mean(0)
    for i in range(y.shape[1]):
        for j in range(z.shape[1]):
            c[i, j] = sum((y[k, i] - ym[i]) * (z[k, j] - zm[j])
                          for k in range(n)) / n
    return c


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('reduce', ['half_squared_sum', 'no'])
def test_forward(dtype, reduce):
    rng = numpy.random.RandomState(0)
    y, z = rng.randn(5, 3).astype(dtype), rng.randn(5, 2).astype(dtype)
    out = F.cross_covariance(y, z, reduce=reduce)
    c = _reference(y.astype(numpy.float64), z.astype(numpy.float64))
    expected = c if reduce == 'no' else 0.5 * (c ** 2).sum()
    assert out.dtype == dtype and out.shape == numpy.shape(expected)
    numpy.testing.assert_allclose(out.array, expected, rtol=1e-5)


@pytest.mark.parametrize('reduce', ['half_squared_sum', 'no'])
def test_backward(reduce):
    rng = numpy.random.RandomState(1)
    y, z = rng.randn(4, 3), rng.randn(4, 2)
    gy = numpy.asarray(rng.randn()) if reduce != 'no' else rng.randn(3, 2)

    def f(y, z):
        return F.cross_covariance(y, z, reduce)
    gradient_check.check_backward(f, (y, z), gy, atol=1e-7, rtol=1e-5)
    gradient_check.check_double_backward(
        f, (y, z), gy, (rng.randn(4, 3), rng.randn(4, 2)), atol=1e-6,
        rtol=1e-4)


def test_bad_inputs():
    y = numpy.ones((4, 3))
    with pytest.raises(ValueError, match="cross_covariance: only"):
        F.cross_covariance(y, y, reduce='mean')
    with pytest.raises(TypeError, match='same batch size'):
        F.cross_covariance(y, numpy.ones((3, 3)))
    with pytest.raises(TypeError, match='same batch size'):
        F.cross_covariance(y[0], y[0])
    with pytest.raises(TypeError, match='share a float dtype'):
        F.cross_covariance(y, y.astype(numpy.float32))
