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


CASES = [((2, 3), a) for a in (0, 1, 2, -1, -2, -3)] + [
    ((4,), 0), ((4,), -1), ((2, 0), 1), ((), 0), ((), -1)]


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,axis', CASES)
def test_forward(dtype, shape, axis):
    x = numpy.random.RandomState(0).uniform(-1, 1, shape).astype(dtype)
    y = F.expand_dims(cpuframe.Variable(x), axis)
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, numpy.expand_dims(x, axis))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,axis', CASES)
def test_backward(dtype, shape, axis):
    rng = numpy.random.RandomState(1)
    x = rng.uniform(-1, 1, shape).astype(dtype)
    gy = rng.uniform(-1, 1, numpy.expand_dims(x, axis).shape).astype(dtype)
    gradient_check.check_backward(
        lambda x: F.expand_dims(x, axis), x, gy, **_tols(dtype))


@pytest.mark.parametrize('dtype', DTYPES)
def test_double_backward(dtype):
    rng = numpy.random.RandomState(2)
    x = rng.uniform(-1, 1, (2, 3)).astype(dtype)
    gy = rng.uniform(-1, 1, (2, 1, 3)).astype(dtype)
    ggx = rng.uniform(-1, 1, x.shape).astype(dtype)
    gradient_check.check_double_backward(
        lambda x: F.expand_dims(x, 1) ** 2, x, gy, ggx, **_tols(dtype))


@pytest.mark.parametrize('axis', [3, -4, 10])
def test_invalid_axis(axis):
    with pytest.raises(type_check.InvalidType, match='ExpandDims') as e:
        F.expand_dims(numpy.zeros((2, 3), numpy.float32), axis)
    assert 'Expect' in str(e.value)
