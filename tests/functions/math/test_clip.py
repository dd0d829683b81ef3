import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

DTYPES = [numpy.float32, numpy.float64]
BOUNDS = [(-0.5, 0.5), (None, 0.25), (-0.25, None), (0, 1)]


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


def _away_from_bounds(rng, shape, dtype, x_min, x_max):
    """Inputs at least 0.05 away from both bounds."""
    x = rng.uniform(-1, 1, shape)
    for b in (x_min, x_max):
        if b is not None:
            near = numpy.abs(x - b) < 0.05
            x = numpy.where(near, b + 0.1, x)
    return numpy.asarray(x, dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('bounds', BOUNDS)
@pytest.mark.parametrize('shape', [(3, 4), ()])
def test_forward(dtype, bounds, shape):
    x = numpy.random.RandomState(0).uniform(-1, 1, shape).astype(dtype)
    y = F.clip(cpuframe.Variable(x), *bounds)
    assert isinstance(y.array, numpy.ndarray)
    assert y.dtype == dtype and y.shape == shape
    numpy.testing.assert_array_equal(y.array, numpy.clip(x, *bounds))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('bounds', BOUNDS)
@pytest.mark.parametrize('shape', [(3, 4), ()])
def test_backward(dtype, bounds, shape):
    rng = numpy.random.RandomState(1)
    x = _away_from_bounds(rng, shape, dtype, *bounds)
    gy = rng.uniform(-1, 1, shape).astype(dtype)
    gradient_check.check_backward(lambda x: F.clip(x, *bounds), x, gy,
                                  **_tols(dtype))


@pytest.mark.parametrize('dtype', DTYPES)
def test_double_backward(dtype):
    rng = numpy.random.RandomState(2)
    x = _away_from_bounds(rng, (3, 4), dtype, -0.5, 0.5)
    gy = rng.uniform(-1, 1, (3, 4)).astype(dtype)
    ggx = rng.uniform(-1, 1, (3, 4)).astype(dtype)
    gradient_check.check_double_backward(lambda x: F.clip(x, -0.5, 0.5),
                                         x, gy, ggx, **_tols(dtype))


def test_gradient_is_one_inside_including_bounds():
    x = cpuframe.Variable(
        numpy.array([-2.0, -1.0, -0.5, 0.0, 1.0, 1.5], numpy.float32))
    y = F.clip(x, -1.0, 1.0)
    y.grad = numpy.full(6, 2.0, numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [0, 2, 2, 2, 2, 0])
    assert x.grad.dtype == numpy.float32


def test_bounds_may_be_equal():
    y = F.clip(numpy.array([-1.0, 0.0, 2.0]), 0.5, 0.5)
    numpy.testing.assert_array_equal(y.array, [0.5, 0.5, 0.5])


def test_min_above_max_is_rejected():
    with pytest.raises(ValueError, match='x_min'):
        F.clip(numpy.zeros(3, numpy.float32), 1.0, -1.0)


def test_both_bounds_none_is_rejected():
    with pytest.raises(ValueError, match='clip'):
        F.clip(numpy.zeros(3, numpy.float32), None, None)


def test_array_bound_is_rejected():
    with pytest.raises(TypeError, match='x_min'):
        F.clip(numpy.zeros(3, numpy.float32), numpy.zeros(3), 1.0)


def test_int_input_is_rejected():
    with pytest.raises(type_check.InvalidType, match='(?s)Clip.*Expect'):
        F.clip(numpy.arange(3), 0, 1)
