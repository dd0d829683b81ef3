import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


def _naive(x, eps, axis):
    axes = (axis,) if isinstance(axis, int) else axis
    norm = numpy.sqrt((x.astype(numpy.float64) ** 2).sum(
        axis=axes, keepdims=True))
    return x / (norm + eps)


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('shape,axis', [
    ((3, 4), 1), ((3, 4), 0), ((2, 3, 4), (1, 2)), ((2, 3, 4), -1),
    ((5,), 0)])
@pytest.mark.parametrize('eps', [1e-5, 0.5])
def test_forward(dtype, shape, axis, eps):
    x = numpy.random.RandomState(0).normal(size=shape).astype(dtype)
    y = F.normalize(cpuframe.Variable(x), eps=eps, axis=axis)
    assert y.dtype == dtype
    numpy.testing.assert_allclose(
        y.array, _naive(x, eps, axis),
        rtol=1e-5 if dtype == numpy.float32 else 1e-12)


@pytest.mark.parametrize('shape,axis', [
    ((3, 4), 1), ((3, 4), 0), ((2, 3, 4), (1, 2))])
def test_backward(shape, axis):
    rng = numpy.random.RandomState(1)
    x = rng.normal(size=shape)
    gy = rng.uniform(-1, 1, shape)
    ggx = rng.uniform(-1, 1, shape)

    def f(x):
        return F.normalize(x, axis=axis)
    gradient_check.check_backward(f, x, gy)
    gradient_check.check_double_backward(f, x, gy, ggx)


def test_backward_float32():
    rng = numpy.random.RandomState(2)
    x = rng.normal(size=(3, 4)).astype(numpy.float32)
    gy = rng.uniform(-1, 1, (3, 4)).astype(numpy.float32)
    gradient_check.check_backward(F.normalize, x, gy, dtype=numpy.float64,
                                  atol=1e-3, rtol=1e-3)


def test_zero_vector_gradient():
    # The Jacobian of x / (|x| + eps) at x = 0 is I / eps.
    x = cpuframe.Variable(numpy.array([[0.0, 0.0], [3.0, 4.0]]))
    y = F.normalize(x, eps=0.5)
    gy = numpy.array([[1.0, -2.0], [0.0, 0.0]])
    y.grad = gy
    y.backward()
    numpy.testing.assert_allclose(x.grad[0], gy[0] / 0.5)
    assert numpy.isfinite(x.grad).all()


def test_int_input():
    with pytest.raises(type_check.InvalidType, match='NormalizeL2'):
        F.normalize(numpy.ones((2, 3), numpy.int32))


def test_axis_out_of_range():
    with pytest.raises(type_check.InvalidType, match='NormalizeL2'):
        F.normalize(numpy.ones((2, 3), numpy.float32), axis=2)
