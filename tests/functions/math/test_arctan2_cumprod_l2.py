"""arctan2, cumprod and batch_l2_norm_squared."""
import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


@pytest.mark.parametrize('s1, s2', [((3, 4), (3, 4)), ((3, 4), (4,)),
                                    ((2, 1, 3), (1, 4, 1)), ((), ())])
@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
def test_arctan2_forward(s1, s2, dtype):
    rng = numpy.random.RandomState(0)
    x1 = numpy.asarray(rng.randn(*s1)).astype(dtype)
    x2 = numpy.asarray(rng.randn(*s2)).astype(dtype)
    y = F.arctan2(x1, x2)
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, numpy.arctan2(x1, x2), rtol=1e-6)


def test_arctan2_quadrants():
    y = F.arctan2(numpy.array([1., 1., -1., -1., 0.]),
                  numpy.array([1., -1., 1., -1., -1.]))
    numpy.testing.assert_allclose(
        y.array, numpy.pi * numpy.array([.25, .75, -.25, -.75, 1.]))


@pytest.mark.parametrize('s1, s2', [((3, 4), (3, 4)), ((3, 4), (4,)),
                                    ((2, 1, 3), (1, 4, 1))])
def test_arctan2_backward(s1, s2):
    rng = numpy.random.RandomState(1)
    x1, x2 = rng.randn(*s1), rng.randn(*s2)
    shape = numpy.broadcast(x1, x2).shape
    gy, ggs = rng.randn(*shape), (rng.randn(*s1), rng.randn(*s2))
    gradient_check.check_backward(F.arctan2, (x1, x2), gy, atol=1e-7,
                                  rtol=1e-5)
    gradient_check.check_double_backward(F.arctan2, (x1, x2), gy, ggs,
                                         atol=1e-6, rtol=1e-4)


def test_arctan2_bad_inputs():
    with pytest.raises(type_check.InvalidType):
        F.arctan2(numpy.ones(2, numpy.float32), numpy.ones(2))
    with pytest.raises(type_check.InvalidType):
        F.arctan2(numpy.ones(2, numpy.int32), numpy.ones(2, numpy.int32))
    with pytest.raises(ValueError, match='arctan2'):
        F.arctan2(numpy.ones(2), numpy.ones(3))


CUMPROD_CASES = [((5,), None), ((3, 4), None), ((3, 4), 0), ((3, 4), 1),
                 ((2, 3, 4), -1), ((2, 3, 4), 1)]


@pytest.mark.parametrize('shape, axis', CUMPROD_CASES)
@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
def test_cumprod_forward(shape, axis, dtype):
    x = numpy.random.RandomState(0).uniform(-2, 2, shape).astype(dtype)
    y = F.cumprod(x, axis)
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, numpy.cumprod(x, axis),
                                  rtol=1e-6)


@pytest.mark.parametrize('shape, axis', CUMPROD_CASES)
@pytest.mark.parametrize('zeros', [0, 1, 2])
def test_cumprod_backward(shape, axis, zeros):
    rng = numpy.random.RandomState(2)
    x = rng.uniform(0.5, 1.5, shape) * rng.choice([-1, 1], shape)
    flat = x.reshape(-1)
    flat[rng.permutation(flat.size)[:zeros]] = 0
    gy = rng.randn(*numpy.cumprod(x, axis).shape)

    def f(x):
        return F.cumprod(x, axis)
    gradient_check.check_backward(f, x, gy, atol=1e-7, rtol=1e-5)
    gradient_check.check_double_backward(f, x, gy, rng.randn(*shape),
                                         atol=1e-6, rtol=1e-4)


def _naive_cumprod_grad(x, gy):
    gx = numpy.zeros_like(x)
    for i in range(len(x)):
        for j in range(i, len(x)):
            p = 1.0
            for k in range(j + 1):
                if k != i:
                    p *= x[k]
            gx[i] += gy[j] * p
    return gx


def test_cumprod_grad_exact_with_zeros():
    x = cpuframe.Variable(numpy.array([2., 0., 3., 0., 5.]))
    gy = numpy.array([1., -2., 0.5, 4., 3.])
    y = F.cumprod(x)
    y.grad = gy
    y.backward()
    numpy.testing.assert_array_equal(x.grad, _naive_cumprod_grad(x.array, gy))
    assert numpy.isfinite(x.grad).all()


def test_cumprod_bad_inputs():
    with pytest.raises(TypeError, match='cumprod: axis'):
        F.cumprod(numpy.ones(3), axis=1.0)
    with pytest.raises(type_check.InvalidType):
        F.cumprod(numpy.ones((2, 3)), axis=2)
    with pytest.raises(type_check.InvalidType):
        F.cumprod(numpy.ones(3, numpy.int32))


@pytest.mark.parametrize('shape', [(4, 1), (4, 3), (2, 3, 5)])
@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
def test_batch_l2_norm_squared(shape, dtype):
    rng = numpy.random.RandomState(3)
    x = rng.randn(*shape).astype(dtype)
    y = F.batch_l2_norm_squared(x)
    expected = numpy.array([(x[i].astype(numpy.float64) ** 2).sum()
                            for i in range(shape[0])])
    assert y.shape == (shape[0],) and y.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5)
    xd = x.astype(numpy.float64)
    gy = rng.randn(shape[0])
    gradient_check.check_backward(F.batch_l2_norm_squared, xd, gy)
    gradient_check.check_double_backward(F.batch_l2_norm_squared, xd, gy,
                                         rng.randn(*shape))


def test_batch_l2_norm_squared_bad_inputs():
    with pytest.raises(TypeError, match='batch_l2_norm_squared'):
        F.batch_l2_norm_squared(numpy.array(1.))
    with pytest.raises(TypeError, match='at least 2 dimensions'):
        F.batch_l2_norm_squared(numpy.ones(3))
    with pytest.raises(TypeError, match='batch_l2_norm_squared'):
        F.batch_l2_norm_squared(numpy.ones((2, 2), numpy.int32))
