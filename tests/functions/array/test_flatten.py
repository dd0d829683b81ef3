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


SHAPES = [(2, 3, 4), (5,), (1, 1), (3, 0), ()]


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(dtype, shape):
    x = numpy.random.RandomState(0).uniform(-1, 1, shape).astype(dtype)
    y = F.flatten(cpuframe.Variable(x))
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, x.ravel())


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_backward(dtype, shape):
    rng = numpy.random.RandomState(1)
    x = rng.uniform(-1, 1, shape).astype(dtype)
    gy = rng.uniform(-1, 1, (x.size,)).astype(dtype)
    gradient_check.check_backward(F.flatten, x, gy, **_tols(dtype))


@pytest.mark.parametrize('dtype', DTYPES)
def test_double_backward(dtype):
    rng = numpy.random.RandomState(2)
    x = rng.uniform(-1, 1, (2, 3)).astype(dtype)
    gy = rng.uniform(-1, 1, (6,)).astype(dtype)
    ggx = rng.uniform(-1, 1, x.shape).astype(dtype)
    gradient_check.check_double_backward(
        lambda x: F.flatten(x) ** 2, x, gy, ggx, **_tols(dtype))
