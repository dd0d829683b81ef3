import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

DTYPES = [numpy.float32, numpy.float64]


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', [(3, 2), (), (2, 0)])
def test_forward(dtype, shape):
    x = numpy.random.RandomState(0).uniform(-2, 2, shape).astype(dtype)
    y = F.square(cpuframe.Variable(x))
    assert isinstance(y.array, numpy.ndarray)
    assert y.dtype == dtype and y.shape == shape
    numpy.testing.assert_allclose(y.array, x * x, rtol=1e-6)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', [(3, 2), ()])
def test_backward(dtype, shape):
    rng = numpy.random.RandomState(1)
    x = rng.uniform(-2, 2, shape).astype(dtype)
    gy = rng.uniform(-1, 1, shape).astype(dtype)
    gradient_check.check_backward(F.square, x, gy, **_tols(dtype))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', [(3, 2), ()])
def test_double_backward(dtype, shape):
    rng = numpy.random.RandomState(2)
    x = rng.uniform(-2, 2, shape).astype(dtype)
    gy = rng.uniform(-1, 1, shape).astype(dtype)
    ggx = rng.uniform(-1, 1, shape).astype(dtype)
    gradient_check.check_double_backward(F.square, x, gy, ggx,
                                         **_tols(dtype))


def test_gradient_values():
    x = cpuframe.Variable(numpy.array([-1.5, 3.0], numpy.float32))
    gx, = cpuframe.grad([F.square(x)], [x], [numpy.ones(2, numpy.float32)],
                        enable_double_backprop=True)
    numpy.testing.assert_allclose(gx.array, [-3.0, 6.0])
    ggx, = cpuframe.grad([gx], [x], [numpy.ones(2, numpy.float32)])
    numpy.testing.assert_allclose(ggx.array, [2.0, 2.0])


def test_int_input_is_rejected():
    with pytest.raises(type_check.InvalidType, match='(?s)Square.*Expect'):
        F.square(numpy.arange(3))
