import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

DTYPES = [numpy.float32, numpy.float64]
CASES = [((4, 3), (3,)), ((4, 3), ()), ((2, 3, 4), (3,)),
         ((2, 3, 4), (3, 4))]


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


def _inputs(x_shape, beta_shape, dtype, seed=0):
    rng = numpy.random.RandomState(seed)
    return (rng.uniform(-2, 2, x_shape).astype(dtype),
            rng.uniform(-1.5, 1.5, beta_shape).astype(dtype))


def _expected(x, beta):
    y = numpy.empty(x.shape)
    for idx in numpy.ndindex(*x.shape):
        b = beta[idx[1:1 + beta.ndim]]
        y[idx] = x[idx] / (1 + numpy.exp(-b * x[idx]))
    return y


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('x_shape,beta_shape', CASES)
def test_forward(dtype, x_shape, beta_shape):
    x, beta = _inputs(x_shape, beta_shape, dtype)
    y = F.swish(x, beta)
    assert y.dtype == dtype and y.shape == x_shape
    numpy.testing.assert_allclose(
        y.array, _expected(x.astype(numpy.float64),
                           beta.astype(numpy.float64)), rtol=1e-5, atol=1e-6)


def test_special_values_of_beta():
    x = numpy.array([[-2.0, 3.0]])
    numpy.testing.assert_allclose(F.swish(x, numpy.zeros(2)).array, x / 2)
    numpy.testing.assert_allclose(
        F.swish(x, numpy.full(2, 100.0)).array, numpy.maximum(x, 0),
        atol=1e-12)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('x_shape,beta_shape', CASES)
def test_backward(dtype, x_shape, beta_shape):
    x, beta = _inputs(x_shape, beta_shape, dtype)
    gy = numpy.random.RandomState(1).uniform(-1, 1, x_shape).astype(dtype)
    gradient_check.check_backward(F.swish, (x, beta), gy, **_tols(dtype))


@pytest.mark.parametrize('x_shape,beta_shape', CASES[:3])
def test_double_backward(x_shape, beta_shape):
    rng = numpy.random.RandomState(2)
    x, beta = _inputs(x_shape, beta_shape, numpy.float64)
    gy = rng.uniform(-1, 1, x_shape)
    ggx = rng.uniform(-1, 1, x_shape)
    ggb = rng.uniform(-1, 1, beta_shape)
    gradient_check.check_double_backward(F.swish, (x, beta), gy, (ggx, ggb))


@pytest.mark.parametrize('x_shape,beta_shape', [((4, 3), (2,)),
                                                ((3,), (3,))])
def test_bad_shapes_are_rejected(x_shape, beta_shape):
    with pytest.raises(type_check.InvalidType, match='Swish'):
        F.swish(numpy.zeros(x_shape), numpy.zeros(beta_shape))
