import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check

DTYPES = [numpy.float32, numpy.float64]


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', [(3, 2), (), (0,)])
def test_forward_one(dtype, shape):
    x = numpy.random.RandomState(0).uniform(-1, 1, shape).astype(dtype)
    v = cpuframe.Variable(x)
    y = F.identity(v)
    assert isinstance(y, cpuframe.Variable)
    assert y is not v
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, x)


def test_forward_many():
    xs = [numpy.ones((2,)), numpy.zeros((3, 1), numpy.float32)]
    ys = F.identity(*xs)
    assert isinstance(ys, tuple) and len(ys) == 2
    for y, x in zip(ys, xs):
        assert y.dtype == x.dtype
        numpy.testing.assert_array_equal(y.array, x)


@pytest.mark.parametrize('dtype', DTYPES)
def test_backward(dtype):
    rng = numpy.random.RandomState(1)
    xs = (rng.uniform(-1, 1, (3, 2)).astype(dtype),
          rng.uniform(-1, 1, (4,)).astype(dtype))
    gys = tuple(rng.uniform(-1, 1, x.shape).astype(dtype) for x in xs)
    gradient_check.check_backward(F.identity, xs, gys, **_tols(dtype))
    gradient_check.check_backward(F.identity, xs[0], gys[0], **_tols(dtype))
    gradient_check.check_backward(F.identity, numpy.array(0.5, dtype),
                                  numpy.array(2.0, dtype), **_tols(dtype))


def test_backward_one_output_used():
    a = cpuframe.Variable(numpy.ones(2))
    b = cpuframe.Variable(numpy.ones(3))
    ya, yb = F.identity(a, b)
    F.sum(yb * 2.0).backward()
    numpy.testing.assert_array_equal(b.grad, numpy.full(3, 2.0))
    assert a.grad is None or not a.grad.any()


@pytest.mark.parametrize('dtype', DTYPES)
def test_double_backward(dtype):
    rng = numpy.random.RandomState(2)
    x = rng.uniform(-1, 1, (3, 2)).astype(dtype)
    gy = rng.uniform(-1, 1, (3, 2)).astype(dtype)
    ggx = rng.uniform(-1, 1, (3, 2)).astype(dtype)
    gradient_check.check_double_backward(
        lambda x: F.identity(x) ** 2, x, gy, ggx, **_tols(dtype))
