"""mean_squared_error, mean_absolute_error, squared_error, absolute_error."""
import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


def _mse(x0, x1):
    total = 0.0
    for a, b in zip(x0.ravel(), x1.ravel()):
        total += (float(a) - float(b)) ** 2
    return total / x0.size


def _mae(x0, x1):
    total = 0.0
    for a, b in zip(x0.ravel(), x1.ravel()):
        total += abs(float(a) - float(b))
    return total / x0.size


def _se(x0, x1):
    return numpy.array([(float(a) - float(b)) ** 2
                        for a, b in zip(x0.ravel(), x1.ravel())]).reshape(
                            x0.shape)


def _ae(x0, x1):
    return numpy.array([abs(float(a) - float(b))
                        for a, b in zip(x0.ravel(), x1.ravel())]).reshape(
                            x0.shape)


CASES = [
    (F.mean_squared_error, _mse, 'MeanSquaredError', True),
    (F.mean_absolute_error, _mae, 'MeanAbsoluteError', True),
    (F.squared_error, _se, 'SquaredError', False),
    (F.absolute_error, _ae, 'AbsoluteError', False),
]
IDS = ['mean_squared_error', 'mean_absolute_error', 'squared_error',
       'absolute_error']


def _inputs(rng, shape, dtype):
    x0 = numpy.asarray(rng.uniform(-1, 1, shape), dtype)
    # keep |x0 - x1| away from 0, where the absolute value has a kink
    step = rng.choice([-1, 1], shape) * rng.uniform(0.2, 1, shape)
    return x0, numpy.asarray(x0 + step, dtype)


@pytest.mark.parametrize('func,ref,label,scalar', CASES, ids=IDS)
@pytest.mark.parametrize('shape', [(3, 4), (2, 3, 2), ()])
@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
def test_forward(func, ref, label, scalar, shape, dtype):
    x0, x1 = _inputs(numpy.random.RandomState(0), shape, dtype)
    y = func(x0, x1)
    assert y.dtype == dtype
    assert y.shape == (() if scalar else shape)
    tol = 1e-6 if dtype == numpy.float32 else 1e-13
    numpy.testing.assert_allclose(y.array, ref(x0, x1), rtol=tol)


@pytest.mark.parametrize('func,ref,label,scalar', CASES, ids=IDS)
@pytest.mark.parametrize('shape', [(3, 4), ()])
def test_backward(func, ref, label, scalar, shape):
    rng = numpy.random.RandomState(1)
    x0, x1 = _inputs(rng, shape, numpy.float64)
    gy = None if scalar else numpy.asarray(rng.randn(*shape))
    gradient_check.check_backward(func, (x0, x1), gy, atol=1e-7, rtol=1e-5)


@pytest.mark.parametrize('func,ref,label,scalar', CASES, ids=IDS)
def test_backward_float32(func, ref, label, scalar):
    rng = numpy.random.RandomState(2)
    x0, x1 = _inputs(rng, (3, 2), numpy.float32)
    gy = None if scalar else rng.randn(3, 2).astype(numpy.float32)
    gradient_check.check_backward(func, (x0, x1), gy, dtype=numpy.float64,
                                  atol=1e-3, rtol=1e-3)


@pytest.mark.parametrize('func,ref,label,scalar', CASES, ids=IDS)
def test_double_backward(func, ref, label, scalar):
    rng = numpy.random.RandomState(3)
    x0, x1 = _inputs(rng, (3, 2), numpy.float64)
    gy = numpy.asarray(rng.randn()) if scalar else rng.randn(3, 2)
    ggx = (rng.randn(3, 2), rng.randn(3, 2))
    gradient_check.check_double_backward(func, (x0, x1), gy, ggx,
                                         atol=1e-7, rtol=1e-5)


@pytest.mark.parametrize('func,ref,label,scalar', CASES, ids=IDS)
@pytest.mark.parametrize('x0,x1', [
    (numpy.zeros((3, 2), numpy.float32), numpy.zeros((3, 2), numpy.float64)),
    (numpy.zeros((3, 2), numpy.float32), numpy.zeros((2, 3), numpy.float32)),
    (numpy.zeros((3, 2), numpy.int32), numpy.zeros((3, 2), numpy.int32)),
], ids=['dtype_mismatch', 'shape_mismatch', 'int'])
def test_bad_input(func, ref, label, scalar, x0, x1):
    with pytest.raises(type_check.InvalidType, match=label):
        func(x0, x1)
