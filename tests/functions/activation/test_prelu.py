import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

DTYPES = [numpy.float32, numpy.float64]
# (x shape, W shape)
CASES = [((4, 3), (3,)), ((4, 3), ()), ((2, 3, 4), (3,)),
         ((2, 3, 4), (3, 4)), ((2, 3, 2, 2), (3,))]


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


def _inputs(x_shape, w_shape, dtype, seed=0):
    rng = numpy.random.RandomState(seed)
    x = rng.uniform(-1, 1, x_shape)
    x[numpy.abs(x) < 0.1] = -0.5
    W = rng.uniform(-1, 1, w_shape)
    return x.astype(dtype), W.astype(dtype)


def _expected(x, W):
    y = numpy.empty(x.shape)
    for idx in numpy.ndindex(*x.shape):
        w = W[idx[1:1 + W.ndim]]
        y[idx] = x[idx] if x[idx] >= 0 else w * x[idx]
    return y


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('x_shape,w_shape', CASES)
def test_forward(dtype, x_shape, w_shape):
    x, W = _inputs(x_shape, w_shape, dtype)
    y = F.prelu(x, W)
    assert y.dtype == dtype and y.shape == x_shape
    numpy.testing.assert_allclose(
        y.array, _expected(x.astype(numpy.float64), W.astype(numpy.float64)),
        rtol=1e-6)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('x_shape,w_shape', CASES)
def test_backward(dtype, x_shape, w_shape):
    x, W = _inputs(x_shape, w_shape, dtype)
    gy = numpy.random.RandomState(1).uniform(-1, 1, x_shape).astype(dtype)
    gradient_check.check_backward(F.prelu, (x, W), gy, **_tols(dtype))


@pytest.mark.parametrize('x_shape,w_shape', CASES[:3])
def test_double_backward(x_shape, w_shape):
    rng = numpy.random.RandomState(2)
    x, W = _inputs(x_shape, w_shape, numpy.float64)
    gy = rng.uniform(-1, 1, x_shape)
    ggx = rng.uniform(-1, 1, x_shape)
    ggW = rng.uniform(-1, 1, w_shape)
    gradient_check.check_double_backward(F.prelu, (x, W), gy, (ggx, ggW))


def test_gradient_of_w_sums_over_batch():
    x = cpuframe.Variable(numpy.array([[-1.0, 2.0], [-3.0, -4.0]]))
    W = cpuframe.Variable(numpy.array([0.5, 0.25]))
    y = F.prelu(x, W)
    y.grad = numpy.ones((2, 2))
    y.backward()
    numpy.testing.assert_allclose(W.grad, [-4.0, -4.0])
    numpy.testing.assert_allclose(x.grad, [[0.5, 1.0], [0.5, 0.25]])


@pytest.mark.parametrize('x_shape,w_shape', [((4, 3), (2,)),
                                             ((2, 3), (3, 1)),
                                             ((3,), (3,))])
def test_bad_shapes_are_rejected(x_shape, w_shape):
    with pytest.raises(type_check.InvalidType, match='PReLUFunction'):
        F.prelu(numpy.zeros(x_shape), numpy.zeros(w_shape))


def test_mismatched_dtypes_are_rejected():
    with pytest.raises(type_check.InvalidType, match='PReLUFunction'):
        F.prelu(numpy.zeros((2, 3)), numpy.zeros(3, numpy.float32))
