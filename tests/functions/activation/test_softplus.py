import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

DTYPES = [numpy.float32, numpy.float64]
BETAS = [1.0, 2.0, 0.5]


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('beta', BETAS)
@pytest.mark.parametrize('shape', [(3, 4), ()])
def test_forward(dtype, beta, shape):
    x = numpy.random.RandomState(0).uniform(-3, 3, shape).astype(dtype)
    y = F.softplus(x, beta=beta)
    assert y.dtype == dtype and y.shape == shape
    xd = x.astype(numpy.float64)
    expected = numpy.log(1 + numpy.exp(beta * xd)) / beta
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5)


def test_large_inputs_are_stable():
    with numpy.errstate(over='raise'):
        y = F.softplus(numpy.array([-1000.0, 1000.0], numpy.float32))
    numpy.testing.assert_allclose(y.array, [0.0, 1000.0])


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('beta', BETAS)
def test_backward(dtype, beta):
    x = numpy.random.RandomState(0).uniform(-3, 3, (3, 4)).astype(dtype)
    gy = numpy.random.RandomState(1).uniform(-1, 1, x.shape).astype(dtype)
    gradient_check.check_backward(lambda x: F.softplus(x, beta), x, gy,
                                  **_tols(dtype))


@pytest.mark.parametrize('beta', BETAS)
def test_double_backward(beta):
    rng = numpy.random.RandomState(2)
    x, gy, ggx = rng.uniform(-2, 2, (3, 3, 4))
    gradient_check.check_double_backward(lambda x: F.softplus(x, beta),
                                         x, gy, ggx)


def test_int_input_is_rejected():
    with pytest.raises(type_check.InvalidType, match='(?s)Softplus.*Expect'):
        F.softplus(numpy.arange(3))


def test_zero_beta_is_rejected():
    with pytest.raises(ValueError, match='softplus'):
        F.softplus(numpy.zeros(3), beta=0)
