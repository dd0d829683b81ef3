import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

DTYPES = [numpy.float32, numpy.float64]


def _input(shape, dtype, seed=0):
    x = numpy.random.RandomState(seed).uniform(-2, 8, shape)
    # keep away from the kinks at 0 and 6 for the numerical gradients
    x[numpy.abs(x) < 0.1] = 0.5
    x[numpy.abs(x - 6) < 0.1] = 3.0
    return x.astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', [(3, 4), ()])
def test_forward(dtype, shape):
    x = _input(shape, dtype)
    y = F.relu6(x)
    assert y.dtype == dtype and y.shape == shape
    flat = [min(max(v, 0.0), 6.0) for v in x.astype(numpy.float64).ravel()]
    numpy.testing.assert_allclose(y.array, numpy.array(flat).reshape(shape),
                                  rtol=1e-6)


def test_forward_edges():
    x = numpy.array([-3.0, 0.0, 2.5, 6.0, 9.0], numpy.float32)
    numpy.testing.assert_array_equal(F.relu6(x).array,
                                     [0.0, 0.0, 2.5, 6.0, 6.0])


def test_gradient_is_zero_outside_the_open_interval():
    x = cpuframe.Variable(
        numpy.array([-1.0, 0.0, 0.5, 5.5, 6.0, 7.0], numpy.float32))
    F.sum(F.relu6(x)).backward()
    numpy.testing.assert_array_equal(x.grad, [0, 0, 1, 1, 0, 0])


@pytest.mark.parametrize('dtype', DTYPES)
def test_backward(dtype):
    x = _input((3, 4), dtype)
    gy = numpy.random.RandomState(1).uniform(-1, 1, x.shape).astype(dtype)
    tols = ({'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
            if dtype == numpy.float32 else {})
    gradient_check.check_backward(F.relu6, x, gy, **tols)


def test_double_backward():
    rng = numpy.random.RandomState(2)
    x = _input((3, 4), numpy.float64)
    gy, ggx = rng.uniform(-1, 1, (2, 3, 4))
    gradient_check.check_double_backward(F.relu6, x, gy, ggx)


def test_int_input_is_rejected():
    with pytest.raises(type_check.InvalidType, match='(?s)ReLU6.*Expect'):
        F.relu6(numpy.arange(3))
