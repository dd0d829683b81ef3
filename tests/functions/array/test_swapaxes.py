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
    ((2, 3, 4), 0, 2),
    ((2, 3, 4), -1, 0),
    ((2, 3, 4), 1, 1),
    ((2, 3), 0, -1),
    ((5,), 0, -1),
    ((1, 0, 3), 0, 1),
]


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,axis1,axis2', CASES)
def test_forward(dtype, shape, axis1, axis2):
    x = numpy.random.RandomState(0).uniform(-1, 1, shape).astype(dtype)
    y = F.swapaxes(cpuframe.Variable(x), axis1, axis2)
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, numpy.swapaxes(x, axis1, axis2))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,axis1,axis2', CASES)
def test_backward(dtype, shape, axis1, axis2):
    rng = numpy.random.RandomState(1)
    x = rng.uniform(-1, 1, shape).astype(dtype)
    gy = rng.uniform(-1, 1, numpy.swapaxes(x, axis1, axis2).shape)
    gradient_check.check_backward(
        lambda x: F.swapaxes(x, axis1, axis2), x, gy.astype(dtype),
        **_tols(dtype))


@pytest.mark.parametrize('dtype', DTYPES)
def test_double_backward(dtype):
    rng = numpy.random.RandomState(2)
    x = rng.uniform(-1, 1, (2, 3, 4)).astype(dtype)
    gy = rng.uniform(-1, 1, (4, 3, 2)).astype(dtype)
    ggx = rng.uniform(-1, 1, x.shape).astype(dtype)
    gradient_check.check_double_backward(
        lambda x: F.swapaxes(x, 0, -1) ** 2, x, gy, ggx, **_tols(dtype))


@pytest.mark.parametrize('axis1,axis2', [(0, 3), (-4, 0), (2, -5)])
def test_invalid_axis(axis1, axis2):
    with pytest.raises(type_check.InvalidType, match='Swapaxes') as e:
        F.swapaxes(numpy.zeros((2, 3, 4), numpy.float32), axis1, axis2)
    assert 'Expect' in str(e.value)
