"""The intel64 parity tests of this op: tests/backends/intel64/test_lrn.py and
test_edge_values.py.
"""
import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


def _naive(x, n, k, alpha, beta):
    """Chainer's formula: n // 2 neighbours on each side of channel i."""
    x = x.astype(numpy.float64)
    c = x.shape[1]
    y = numpy.empty_like(x)
    for i in range(c):
        lo, hi = max(0, i - n // 2), min(c - 1, i + n // 2)
        total = (x[:, lo:hi + 1] ** 2).sum(axis=1)
        y[:, i] = x[:, i] / (k + alpha * total) ** beta
    return y


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('shape', [(2, 7, 3, 2), (3, 4), (2, 6, 5)])
@pytest.mark.parametrize('n,k,alpha,beta', [
    (5, 2, 1e-4, .75), (3, 1, 0.5, 0.6), (4, 1.5, 0.3, 1.0),
    (1, 1, 1, 1), (9, 2, 0.1, 0.75)])
def test_forward(dtype, shape, n, k, alpha, beta):
    x = numpy.random.RandomState(0).normal(0, 2, shape).astype(dtype)
    y = F.local_response_normalization(cpuframe.Variable(x), n, k, alpha,
                                       beta)
    assert y.dtype == dtype
    numpy.testing.assert_allclose(
        y.array, _naive(x, n, k, alpha, beta),
        rtol=1e-5 if dtype == numpy.float32 else 1e-12)


def test_default_arguments():
    x = numpy.random.RandomState(1).normal(0, 10, (2, 6, 2, 2))
    numpy.testing.assert_allclose(
        F.local_response_normalization(x).array,
        _naive(x, 5, 2, 1e-4, .75), rtol=1e-12)


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('n,k,alpha,beta', [
    (5, 2, 1e-4, .75), (3, 1, 0.5, 0.6), (4, 1.5, 0.3, 1.0)])
def test_backward(dtype, n, k, alpha, beta):
    rng = numpy.random.RandomState(2)
    x = rng.normal(0, 1.5, (2, 6, 2, 3)).astype(dtype)
    gy = rng.uniform(-1, 1, x.shape).astype(dtype)
    tols = {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3} \
        if dtype == numpy.float32 else {}
    gradient_check.check_backward(
        lambda x: F.local_response_normalization(x, n, k, alpha, beta),
        x, gy, **tols)


def test_double_backward_not_supported():
    x = cpuframe.Variable(numpy.random.RandomState(3).normal(size=(2, 4)))
    y = F.local_response_normalization(x)
    gx, = cpuframe.grad([F.sum(y)], [x], enable_double_backprop=True)
    with pytest.raises(NotImplementedError,
                       match='LocalResponseNormalizationGrad'):
        F.sum(gx * gx).backward()


def test_one_dim_input():
    with pytest.raises(type_check.InvalidType,
                       match='LocalResponseNormalization'):
        F.local_response_normalization(numpy.ones(3, numpy.float32))


def test_int_input():
    with pytest.raises(type_check.InvalidType,
                       match='LocalResponseNormalization'):
        F.local_response_normalization(numpy.ones((2, 3), numpy.int32))


def test_bad_n():
    with pytest.raises(ValueError, match='LocalResponseNormalization'):
        F.local_response_normalization(numpy.ones((2, 3)), n=0)
