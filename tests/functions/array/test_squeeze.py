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
    ((1, 3, 1, 2), None),
    ((1, 3, 1, 2), 0),
    ((1, 3, 1, 2), -2),
    ((1, 3, 1, 2), (0, 2)),
    ((1, 3, 1, 2), (-4, 2)),
    ((2, 3), None),
    ((2, 3), ()),
    ((1, 1), None),
    ((1,), 0),
    ((0, 1), 1),
    ((), None),
]


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,axis', CASES)
def test_forward(dtype, shape, axis):
    x = numpy.random.RandomState(0).uniform(-1, 1, shape).astype(dtype)
    y = F.squeeze(cpuframe.Variable(x), axis)
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, numpy.squeeze(x, axis))
    assert y.shape == numpy.squeeze(x, axis).shape


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,axis', CASES)
def test_backward(dtype, shape, axis):
    rng = numpy.random.RandomState(1)
    x = rng.uniform(-1, 1, shape).astype(dtype)
    gy = rng.uniform(-1, 1, numpy.squeeze(x, axis).shape).astype(dtype)
    gradient_check.check_backward(
        lambda x: F.squeeze(x, axis), x, gy, **_tols(dtype))


@pytest.mark.parametrize('dtype', DTYPES)
def test_double_backward(dtype):
    rng = numpy.random.RandomState(2)
    x = rng.uniform(-1, 1, (1, 3, 1)).astype(dtype)
    gy = rng.uniform(-1, 1, (3,)).astype(dtype)
    ggx = rng.uniform(-1, 1, x.shape).astype(dtype)
    gradient_check.check_double_backward(
        lambda x: F.squeeze(x) ** 2, x, gy, ggx, **_tols(dtype))


@pytest.mark.parametrize('axis', [1, (0, 1), 3, -4, (0, 0)])
def test_invalid_axis(axis):
    with pytest.raises(type_check.InvalidType, match='Squeeze') as e:
        F.squeeze(numpy.zeros((1, 3, 1), numpy.float32), axis)
    assert 'Expect' in str(e.value)
