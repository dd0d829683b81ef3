import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


def _naive(x, groups, gamma, beta, eps):
    x = x.astype(numpy.float64)
    n, c = x.shape[:2]
    size = c // groups
    y = numpy.empty_like(x)
    for b in range(n):
        for g in range(groups):
            block = x[b, g * size:(g + 1) * size]
            mu = block.mean()
            var = ((block - mu) ** 2).mean()
            y[b, g * size:(g + 1) * size] = (block - mu) / numpy.sqrt(
                var + eps)
    shape = (1, c) + (1,) * (x.ndim - 2)
    return y * gamma.reshape(shape) + beta.reshape(shape)


def _inputs(shape, dtype, seed):
    rng = numpy.random.RandomState(seed)
    return (rng.normal(1, 2, shape).astype(dtype),
            rng.uniform(0.5, 1.5, shape[1]).astype(dtype),
            rng.uniform(-1, 1, shape[1]).astype(dtype))


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('shape,groups', [
    ((2, 6, 3, 2), 3), ((2, 6, 3, 2), 1), ((2, 6, 3, 2), 6),
    ((3, 4), 2), ((2, 4, 5), 2)])
def test_forward(dtype, shape, groups):
    x, gamma, beta = _inputs(shape, dtype, 0)
    y = F.group_normalization(cpuframe.Variable(x), groups, gamma, beta)
    assert y.dtype == dtype and y.shape == shape
    numpy.testing.assert_allclose(
        y.array, _naive(x, groups, gamma, beta, 1e-5),
        rtol=1e-4 if dtype == numpy.float32 else 1e-10,
        atol=1e-4 if dtype == numpy.float32 else 1e-10)


@pytest.mark.parametrize('shape,groups', [
    ((2, 4, 2, 2), 2), ((2, 4, 3), 4), ((3, 4), 1)])
def test_backward(shape, groups):
    inputs = _inputs(shape, numpy.float64, 1)
    rng = numpy.random.RandomState(2)
    gy = rng.uniform(-1, 1, shape)
    ggs = tuple(rng.uniform(-1, 1, a.shape) for a in inputs)

    def f(x, gamma, beta):
        return F.group_normalization(x, groups, gamma, beta, eps=1e-3)
    gradient_check.check_backward(f, inputs, gy)
    gradient_check.check_double_backward(f, inputs, gy, ggs)


def test_backward_float32():
    inputs = _inputs((2, 6, 2, 2), numpy.float32, 3)
    gy = numpy.random.RandomState(4).uniform(-1, 1, (2, 6, 2, 2)).astype(
        numpy.float32)
    gradient_check.check_backward(
        lambda x, g, b: F.group_normalization(x, 3, g, b), inputs, gy,
        dtype=numpy.float64, atol=1e-3, rtol=1e-3)


def test_groups_do_not_divide_channels():
    x, gamma, beta = _inputs((2, 6, 2), numpy.float32, 5)
    with pytest.raises(type_check.InvalidType, match='GroupNormalization'):
        F.group_normalization(x, 4, gamma, beta)


@pytest.mark.parametrize('groups', [0, -1, 1.5])
def test_bad_groups(groups):
    x, gamma, beta = _inputs((2, 6, 2), numpy.float32, 6)
    with pytest.raises(ValueError, match='GroupNormalization'):
        F.group_normalization(x, groups, gamma, beta)


def test_gamma_shape_mismatch():
    x, gamma, beta = _inputs((2, 6, 2), numpy.float32, 7)
    with pytest.raises(type_check.InvalidType, match='GroupNormalization'):
        F.group_normalization(x, 2, gamma[:4], beta[:4])


def test_one_dim_input():
    with pytest.raises(type_check.InvalidType, match='GroupNormalization'):
        F.group_normalization(numpy.ones(4, numpy.float32), 2,
                              numpy.ones(4, numpy.float32),
                              numpy.zeros(4, numpy.float32))
