import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.functions.activation.relu import ReLUGrad
from cpuframe.utils import type_check

DTYPES = [numpy.float32, numpy.float64]


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


def _input(shape, dtype, seed=0):
    x = numpy.random.RandomState(seed).uniform(-1, 1, shape)
    x[numpy.abs(x) < 0.1] = 0.5  # away from the kink at 0
    return x.astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', [(3, 4), (), (2, 0), (2, 3, 2)])
def test_forward(dtype, shape):
    x = _input(shape, dtype)
    y = F.relu(x)
    assert isinstance(y.array, numpy.ndarray)
    assert y.dtype == dtype and y.shape == shape
    expected = numpy.array([v if v > 0 else 0 for v in x.ravel()],
                           dtype).reshape(shape)
    numpy.testing.assert_array_equal(y.array, expected)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', [(3, 4), ()])
def test_backward(dtype, shape):
    rng = numpy.random.RandomState(1)
    gy = rng.uniform(-1, 1, shape).astype(dtype)
    gradient_check.check_backward(F.relu, _input(shape, dtype), gy,
                                  **_tols(dtype))


@pytest.mark.parametrize('dtype', DTYPES)
def test_double_backward(dtype):
    rng = numpy.random.RandomState(2)
    x = _input((3, 4), dtype)
    gy = rng.uniform(-1, 1, x.shape).astype(dtype)
    ggx = rng.uniform(-1, 1, x.shape).astype(dtype)
    gradient_check.check_double_backward(F.relu, x, gy, ggx, **_tols(dtype))


def test_backward_is_relu_grad_of_the_output():
    x = cpuframe.Variable(numpy.array([-1.0, 0.0, 2.0]))
    y = F.relu(x)
    assert x.node.data is None  # the input is not retained
    gy = cpuframe.Variable(numpy.array([3.0, 4.0, 5.0]))
    gx, = cpuframe.grad([y], [x], [gy],
                        enable_double_backprop=True)
    assert isinstance(gx.creator, ReLUGrad)
    numpy.testing.assert_array_equal(gx.array, [0.0, 0.0, 5.0])


def test_int_input_is_rejected():
    with pytest.raises(type_check.InvalidType, match='(?s)ReLU.*Expect'):
        F.relu(numpy.arange(3))
