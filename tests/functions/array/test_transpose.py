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


CASES = [
    ((2, 3, 4), None),
    ((2, 3, 4), (1, 2, 0)),
    ((2, 3, 4), (-1, 0, -2)),
    ((2, 3), (0, 1)),
    ((5,), None),
    ((1, 0, 3), (2, 0, 1)),
    ((), None),
    ((), ()),
]


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,axes', CASES)
def test_forward(dtype, shape, axes):
    x = numpy.random.RandomState(0).uniform(-1, 1, shape).astype(dtype)
    y = F.transpose(cpuframe.Variable(x), axes)
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, numpy.transpose(x, axes))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,axes', CASES)
def test_backward(dtype, shape, axes):
    rng = numpy.random.RandomState(1)
    x = rng.uniform(-1, 1, shape).astype(dtype)
    gy = rng.uniform(-1, 1, numpy.transpose(x, axes).shape).astype(dtype)
    gradient_check.check_backward(
        lambda x: F.transpose(x, axes), x, gy, **_tols(dtype))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('axes', [None, (2, 0, 1), (-2, -1, -3)])
def test_double_backward(dtype, axes):
    rng = numpy.random.RandomState(2)
    x = rng.uniform(-1, 1, (2, 3, 4)).astype(dtype)
    gy = rng.uniform(-1, 1, numpy.transpose(x, axes).shape).astype(dtype)
    ggx = rng.uniform(-1, 1, x.shape).astype(dtype)
    gradient_check.check_double_backward(
        lambda x: F.transpose(x, axes) ** 2, x, gy, ggx, **_tols(dtype))


def test_variable_methods():
    x = cpuframe.Variable(numpy.zeros((2, 3, 4), numpy.float32))
    assert x.T.shape == (4, 3, 2)
    assert x.transpose(1, 0, 2).shape == (3, 2, 4)
    assert x.transpose((2, 1, 0)).shape == (4, 3, 2)


@pytest.mark.parametrize('axes', [(0, 1), (0, 1, 1), (0, 1, 3), (0, 1, -4)])
def test_invalid_axes(axes):
    with pytest.raises(type_check.InvalidType, match='Transpose'):
        F.transpose(numpy.zeros((2, 3, 4), numpy.float32), axes)
