import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check

DTYPES = [numpy.float32, numpy.float64]


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


CASES = [
    ((2, 3, 4), (4, 6)),
    ((2, 3, 4), (-1, 2)),
    ((2, 3, 4), (24,)),
    ((6,), (1, 6, 1)),
    ((1,), ()),
    ((), (1, 1)),
    ((2, 0), (0, 5)),
]


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('in_shape,out_shape', CASES)
def test_forward(dtype, in_shape, out_shape):
    x = numpy.random.RandomState(0).uniform(-1, 1, in_shape).astype(dtype)
    y = F.reshape(cpuframe.Variable(x), out_shape)
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, x.reshape(out_shape))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('in_shape,out_shape', CASES)
def test_backward(dtype, in_shape, out_shape):
    rng = numpy.random.RandomState(1)
    x = rng.uniform(-1, 1, in_shape).astype(dtype)
    gy = rng.uniform(-1, 1, x.reshape(out_shape).shape).astype(dtype)
    gradient_check.check_backward(
        lambda x: F.reshape(x, out_shape), x, gy, **_tols(dtype))


@pytest.mark.parametrize('dtype', DTYPES)
def test_double_backward(dtype):
    rng = numpy.random.RandomState(2)
    x = rng.uniform(-1, 1, (2, 3)).astype(dtype)
    gy = rng.uniform(-1, 1, (3, 2)).astype(dtype)
    ggx = rng.uniform(-1, 1, (2, 3)).astype(dtype)
    gradient_check.check_double_backward(
        lambda x: F.reshape(x, (3, 2)) ** 2, x, gy, ggx, **_tols(dtype))


def test_same_shape_returns_variable():
    x = numpy.zeros((2, 3), numpy.float32)
    y = F.reshape(x, (2, 3))
    assert isinstance(y, cpuframe.Variable)
    assert y.shape == (2, 3)


def test_int_shape():
    assert F.reshape(numpy.zeros((2, 3), numpy.float32), 6).shape == (6,)


def test_variable_method():
    x = cpuframe.Variable(numpy.zeros((2, 3), numpy.float32))
    assert x.reshape(3, 2).shape == (3, 2)
    assert x.reshape((6,)).shape == (6,)


@pytest.mark.parametrize('shape', [(4, 2), (-1, -1), (5, -1), (-1, 0)])
def test_invalid_shape(shape):
    with pytest.raises(ValueError, match='reshape'):
        F.reshape(numpy.zeros((2, 3), numpy.float32), shape)
