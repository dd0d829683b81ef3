import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


def _naive(x, gamma, beta, eps):
    x = x.astype(numpy.float64)
    y = numpy.empty_like(x)
    for i in range(x.shape[0]):
        row = x[i]
        mu = row.sum() / row.size
        var = ((row - mu) ** 2).sum() / row.size
        y[i] = gamma * (row - mu) / numpy.sqrt(var + eps) + beta
    return y


def _inputs(shape, dtype, seed):
    rng = numpy.random.RandomState(seed)
    return (rng.normal(1, 2, shape).astype(dtype),
            rng.uniform(0.5, 1.5, shape[1:]).astype(dtype),
            rng.uniform(-1, 1, shape[1:]).astype(dtype))


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('shape', [(3, 5), (1, 7), (4, 1)])
@pytest.mark.parametrize('eps', [1e-5, 0.1])
def test_forward(dtype, shape, eps):
    x, gamma, beta = _inputs(shape, dtype, 0)
    y = F.layer_normalization(cpuframe.Variable(x), gamma, beta, eps=eps)
    assert y.dtype == dtype and y.shape == shape
    numpy.testing.assert_allclose(
        y.array, _naive(x, gamma, beta, eps),
        rtol=1e-4 if dtype == numpy.float32 else 1e-10,
        atol=1e-4 if dtype == numpy.float32 else 1e-10)


@pytest.mark.parametrize('shape', [(3, 5), (2, 3)])
def test_backward(shape):
    inputs = _inputs(shape, numpy.float64, 1)
    rng = numpy.random.RandomState(2)
    gy = rng.uniform(-1, 1, shape)
    ggs = tuple(rng.uniform(-1, 1, a.shape) for a in inputs)
    gradient_check.check_backward(F.layer_normalization, inputs, gy)
    gradient_check.check_double_backward(F.layer_normalization, inputs, gy,
                                         ggs)


def test_backward_float32():
    inputs = _inputs((4, 6), numpy.float32, 3)
    gy = numpy.random.RandomState(4).uniform(-1, 1, (4, 6)).astype(
        numpy.float32)
    gradient_check.check_backward(F.layer_normalization, inputs, gy,
                                  dtype=numpy.float64, atol=1e-3, rtol=1e-3)


def test_x_not_2d():
    x, gamma, beta = _inputs((2, 3), numpy.float32, 5)
    with pytest.raises(type_check.InvalidType, match='LayerNormalization'):
        F.layer_normalization(x.reshape(2, 3, 1), gamma, beta)


def test_gamma_shape_mismatch():
    x, gamma, beta = _inputs((2, 3), numpy.float32, 6)
    with pytest.raises(type_check.InvalidType, match='LayerNormalization'):
        F.layer_normalization(x, numpy.ones(4, numpy.float32), beta)


def test_dtype_mismatch():
    x, gamma, beta = _inputs((2, 3), numpy.float32, 7)
    with pytest.raises(type_check.InvalidType, match='LayerNormalization'):
        F.layer_normalization(x, gamma.astype(numpy.float64), beta)
