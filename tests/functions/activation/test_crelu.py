import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

DTYPES = [numpy.float32, numpy.float64]
CASES = [((2, 3), 1), ((2, 3), 0), ((2, 3, 4), -1), ((2, 3, 4), 2),
         ((3,), 0)]


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


def _input(shape, dtype, seed=0):
    x = numpy.random.RandomState(seed).uniform(-1, 1, shape)
    x[numpy.abs(x) < 0.1] = 0.5
    return x.astype(dtype)


def _expected(x, axis):
    axis %= x.ndim
    out_shape = list(x.shape)
    out_shape[axis] *= 2
    y = numpy.zeros(out_shape, x.dtype)
    n = x.shape[axis]
    for idx in numpy.ndindex(*x.shape):
        v = x[idx]
        pos = list(idx)
        neg = list(idx)
        neg[axis] += n
        y[tuple(pos)] = max(v, 0)
        y[tuple(neg)] = max(-v, 0)
    return y


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,axis', CASES)
def test_forward(dtype, shape, axis):
    x = _input(shape, dtype)
    y = F.crelu(x, axis=axis)
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, _expected(x, axis))


def test_default_axis_is_1():
    x = _input((2, 3), numpy.float64)
    assert F.crelu(x).shape == (2, 6)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,axis', CASES)
def test_backward(dtype, shape, axis):
    x = _input(shape, dtype)
    out_shape = list(shape)
    out_shape[axis] *= 2
    gy = numpy.random.RandomState(1).uniform(-1, 1, out_shape).astype(dtype)
    gradient_check.check_backward(lambda x: F.crelu(x, axis), x, gy,
                                  **_tols(dtype))


def test_double_backward():
    rng = numpy.random.RandomState(2)
    x = _input((2, 3), numpy.float64)
    gy = rng.uniform(-1, 1, (2, 6))
    ggx = rng.uniform(-1, 1, (2, 3))
    gradient_check.check_double_backward(F.crelu, x, gy, ggx)


@pytest.mark.parametrize('axis', [2, -3])
def test_axis_out_of_range_is_rejected(axis):
    with pytest.raises(type_check.InvalidType, match='(?s)CReLU.*axis'):
        F.crelu(numpy.zeros((2, 3)), axis=axis)


def test_non_int_axis_is_rejected():
    with pytest.raises(TypeError, match='crelu'):
        F.crelu(numpy.zeros((2, 3)), axis=1.0)


def test_int_input_is_rejected():
    with pytest.raises(type_check.InvalidType, match='CReLU'):
        F.crelu(numpy.zeros((2, 3), numpy.int32))
