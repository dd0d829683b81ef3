import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

DTYPES = [numpy.float32, numpy.float64]
SLOPES = [0.2, 0.0, -0.3, 1.5]


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


def _input(shape, dtype, seed=0):
    x = numpy.random.RandomState(seed).uniform(-1, 1, shape)
    x[numpy.abs(x) < 0.1] = -0.5
    return x.astype(dtype)


def _expected(x, slope):
    flat = [v if v >= 0 else slope * v for v in x.astype(numpy.float64).ravel()]
    return numpy.array(flat).reshape(x.shape)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('slope', SLOPES)
@pytest.mark.parametrize('shape', [(3, 4), ()])
def test_forward(dtype, slope, shape):
    x = _input(shape, dtype)
    y = F.leaky_relu(x, slope=slope)
    assert y.dtype == dtype and y.shape == shape
    numpy.testing.assert_allclose(y.array, _expected(x, slope), rtol=1e-6)


def test_default_slope():
    y = F.leaky_relu(numpy.array([-1.0, 1.0]))
    numpy.testing.assert_allclose(y.array, [-0.2, 1.0])


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('slope', SLOPES)
def test_backward(dtype, slope):
    x = _input((3, 4), dtype)
    gy = numpy.random.RandomState(1).uniform(-1, 1, x.shape).astype(dtype)
    gradient_check.check_backward(lambda x: F.leaky_relu(x, slope), x, gy,
                                  **_tols(dtype))


@pytest.mark.parametrize('slope', SLOPES)
def test_double_backward(slope):
    rng = numpy.random.RandomState(2)
    x = _input((3, 4), numpy.float64)
    gy, ggx = rng.uniform(-1, 1, (2, 3, 4))
    gradient_check.check_double_backward(
        lambda x: F.leaky_relu(x, slope), x, gy, ggx)


def test_zero_slope_gradient_is_zero_on_the_negative_side():
    x = cpuframe.Variable(numpy.array([-1.0, 2.0]))
    y = F.leaky_relu(x, slope=0.0)
    y.grad = numpy.ones(2)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [0.0, 1.0])


def test_int_input_is_rejected():
    with pytest.raises(type_check.InvalidType, match='(?s)LeakyReLU.*Expect'):
        F.leaky_relu(numpy.arange(3))
