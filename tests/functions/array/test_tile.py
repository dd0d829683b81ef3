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
    ((2, 3), 2),
    ((2, 3), (2, 1)),
    ((2, 3), (3,)),
    ((2, 3), (2, 1, 2)),
    ((2, 3, 4), (2, 1)),
    ((4,), (3, 2)),
    ((2, 3), (0, 2)),
    ((2, 3), ()),
    ((1,), 5),
    ((), 3),
    ((), (2, 2)),
]


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,reps', CASES)
def test_forward(dtype, shape, reps):
    x = numpy.random.RandomState(0).uniform(-1, 1, shape).astype(dtype)
    y = F.tile(cpuframe.Variable(x), reps)
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, numpy.tile(x, reps))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,reps', CASES)
def test_backward(dtype, shape, reps):
    rng = numpy.random.RandomState(1)
    x = rng.uniform(-1, 1, shape).astype(dtype)
    gy = rng.uniform(-1, 1, numpy.tile(x, reps).shape).astype(dtype)
    gradient_check.check_backward(
        lambda x: F.tile(x, reps), x, gy, **_tols(dtype))


@pytest.mark.parametrize('dtype', DTYPES)
def test_double_backward(dtype):
    rng = numpy.random.RandomState(3)
    x = rng.uniform(-1, 1, (2, 3)).astype(dtype)
    gy = rng.uniform(-1, 1, (2, 4, 3)).astype(dtype)
    ggx = rng.uniform(-1, 1, x.shape).astype(dtype)
    gradient_check.check_double_backward(
        lambda x: F.tile(x, (2, 2, 1)) ** 2, x, gy, ggx, **_tols(dtype))


@pytest.mark.parametrize('reps', [-1, (2, -1)])
def test_negative_reps(reps):
    with pytest.raises(ValueError, match='tile'):
        F.tile(numpy.zeros((2, 3), numpy.float32), reps)


@pytest.mark.parametrize('reps', [1.5, (2, 'a'), None, (True,)])
def test_bad_reps_type(reps):
    with pytest.raises(TypeError, match='tile'):
        F.tile(numpy.zeros((2, 3), numpy.float32), reps)
