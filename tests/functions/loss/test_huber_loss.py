import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


def _reference(x, t, delta, reduce):
    out = numpy.zeros(x.shape)
    for idx in numpy.ndindex(*x.shape):
        a = float(x[idx]) - float(t[idx])
        if abs(a) <= delta:
            out[idx] = 0.5 * a * a
        else:
            out[idx] = delta * (abs(a) - 0.5 * delta)
    if reduce == 'sum_along_second_axis':
        out = out.sum(axis=1)
    return out


def _inputs(rng, shape, dtype, delta):
    x = rng.uniform(-2, 2, shape).astype(dtype)
    t = rng.uniform(-2, 2, shape).astype(dtype)
    # keep |x - t| away from delta, where the second derivative jumps
    near = abs(abs(x - t) - delta) < 0.05
    t[near] += 0.2
    return x, t


@pytest.mark.parametrize('shape', [(4, 3), (2, 3, 2)])
@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('reduce', ['sum_along_second_axis', 'no'])
@pytest.mark.parametrize('delta', [0.5, 1.0])
def test_forward(shape, dtype, reduce, delta):
    x, t = _inputs(numpy.random.RandomState(0), shape, dtype, delta)
    y = F.huber_loss(x, t, delta, reduce=reduce)
    expected = _reference(x, t, delta, reduce)
    assert y.dtype == dtype and y.shape == expected.shape
    tol = 1e-6 if dtype == numpy.float32 else 1e-13
    numpy.testing.assert_allclose(y.array, expected, rtol=tol, atol=tol)


def test_default_reduce_sums_along_axis_1():
    x = numpy.array([[0.5, 3.0]], numpy.float32)
    y = F.huber_loss(x, numpy.zeros_like(x), delta=1.0)
    numpy.testing.assert_allclose(y.array, [0.125 + 2.5])


@pytest.mark.parametrize('shape', [(4, 3), (2, 3, 2)])
@pytest.mark.parametrize('reduce', ['sum_along_second_axis', 'no'])
def test_backward_and_double_backward(shape, reduce):
    rng = numpy.random.RandomState(1)
    x, t = _inputs(rng, shape, numpy.float64, 1.0)
    y = F.huber_loss(x, t, 1.0, reduce=reduce)
    gy = rng.randn(*y.shape)

    def f(x, t):
        return F.huber_loss(x, t, 1.0, reduce=reduce)
    gradient_check.check_backward(f, (x, t), gy, atol=1e-7, rtol=1e-5)
    gradient_check.check_double_backward(
        f, (x, t), gy, (rng.randn(*shape), rng.randn(*shape)), atol=1e-7,
        rtol=1e-5)


def test_backward_float32():
    rng = numpy.random.RandomState(2)
    x, t = _inputs(rng, (3, 4), numpy.float32, 1.0)
    gy = rng.randn(3).astype(numpy.float32)
    gradient_check.check_backward(lambda x, t: F.huber_loss(x, t, 1.0),
                                  (x, t), gy, dtype=numpy.float64,
                                  atol=1e-3, rtol=1e-3)


@pytest.mark.parametrize('x,t', [
    (numpy.zeros((3, 2), numpy.float32), numpy.zeros((3, 3), numpy.float32)),
    (numpy.zeros((3, 2), numpy.float32), numpy.zeros((3, 2), numpy.float64)),
    (numpy.zeros((3, 2), numpy.int32), numpy.zeros((3, 2), numpy.int32)),
    (numpy.zeros((3,), numpy.float32), numpy.zeros((3,), numpy.float32)),
])
def test_bad_input(x, t):
    with pytest.raises(type_check.InvalidType, match='HuberLoss'):
        F.huber_loss(x, t, 1.0)


def test_one_dimensional_input_with_reduce_no():
    x = numpy.array([0.5, 3.0])
    numpy.testing.assert_allclose(
        F.huber_loss(x, numpy.zeros(2), 1.0, reduce='no').array, [0.125, 2.5])


def test_invalid_reduce():
    with pytest.raises(ValueError, match='huber_loss') as e:
        F.huber_loss(numpy.zeros((2, 2)), numpy.zeros((2, 2)), 1.0,
                     reduce='mean')
    assert "'sum_along_second_axis' and 'no'" in str(e.value)
