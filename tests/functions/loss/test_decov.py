import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


def _naive_cov(h):
    n, m = h.shape
    h = h.astype(numpy.float64)
    mu = h.mean(axis=0)
    c = numpy.zeros((m, m))
    for i in range(m):
        for j in range(m):
            if i != j:
                c[i, j] = sum((h[k, i] - mu[i]) * (h[k, j] - mu[j])
                              for k in range(n)) / n
    return c


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('shape', [(5, 3), (8, 1), (2, 6)])
def test_forward(dtype, shape):
    h = numpy.random.RandomState(0).uniform(-1, 1, shape).astype(dtype)
    c = _naive_cov(h)
    y = F.decov(h)
    assert y.shape == () and y.dtype == dtype
    numpy.testing.assert_allclose(y.array, 0.5 * (c ** 2).sum(), rtol=1e-5)
    y = F.decov(h, reduce='no')
    assert y.shape == (shape[1],) * 2 and y.dtype == dtype
    numpy.testing.assert_allclose(y.array, c, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize('reduce', ['half_squared_sum', 'no'])
def test_backward(reduce):
    rng = numpy.random.RandomState(1)
    h = rng.uniform(-1, 1, (4, 3))

    def f(h):
        return F.decov(h, reduce=reduce)
    gy = rng.uniform(-1, 1, () if reduce != 'no' else (3, 3))
    gradient_check.check_backward(f, (h,), gy)
    gradient_check.check_double_backward(f, (h,), gy,
                                         (rng.uniform(-1, 1, h.shape),))


def test_gradient_formula():
    # d/dh 0.5 ||C||^2 = (2 / N) * hc C (C symmetric, zero diagonal).
    h = numpy.random.RandomState(2).uniform(-1, 1, (6, 4))
    v = cpuframe.Variable(h)
    F.decov(v).backward()
    hc = h - h.mean(axis=0)
    numpy.testing.assert_allclose(v.grad, 2 / 6 * hc.dot(_naive_cov(h)),
                                  rtol=1e-10, atol=1e-12)


def test_bad_inputs():
    with pytest.raises(ValueError, match='reduce'):
        F.decov(numpy.zeros((2, 3)), reduce='mean')
    with pytest.raises(type_check.InvalidType, match='decov'):
        F.decov(numpy.zeros(3))
    with pytest.raises(type_check.InvalidType, match='decov'):
        F.decov(numpy.zeros((2, 3), numpy.int32))
