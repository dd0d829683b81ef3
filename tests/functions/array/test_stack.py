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


CASES = [((2, 3), n, a) for n, a in [(3, 0), (2, 1), (2, 2), (4, -1),
                                      (2, -3), (1, 0)]] + [
    ((4,), 2, 1), ((2, 0), 3, 1), ((), 3, 0), ((), 2, -1)]


def _inputs(shape, n, dtype, seed=0):
    rng = numpy.random.RandomState(seed)
    return tuple(rng.uniform(-1, 1, shape).astype(dtype) for _ in range(n))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,n,axis', CASES)
def test_forward(dtype, shape, n, axis):
    xs = _inputs(shape, n, dtype)
    y = F.stack([cpuframe.Variable(x) for x in xs], axis=axis)
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, numpy.stack(xs, axis))


def test_default_axis_is_0():
    xs = _inputs((2, 3), 4, numpy.float32)
    assert F.stack(xs).shape == (4, 2, 3)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,n,axis', CASES)
def test_backward(dtype, shape, n, axis):
    xs = _inputs(shape, n, dtype, 1)
    gy = numpy.random.RandomState(2).uniform(
        -1, 1, numpy.stack(xs, axis).shape).astype(dtype)
    gradient_check.check_backward(
        lambda *xs: F.stack(xs, axis), xs, gy, **_tols(dtype))


@pytest.mark.parametrize('dtype', DTYPES)
def test_double_backward(dtype):
    xs = _inputs((2, 3), 3, dtype, 3)
    rng = numpy.random.RandomState(4)
    gy = rng.uniform(-1, 1, (2, 3, 3)).astype(dtype)
    ggxs = tuple(rng.uniform(-1, 1, (2, 3)).astype(dtype) for _ in xs)
    gradient_check.check_double_backward(
        lambda *xs: F.stack(xs, 1) ** 2, xs, gy, ggxs, **_tols(dtype))


def test_mismatched_shapes():
    xs = (numpy.zeros((2, 3), numpy.float32),
          numpy.zeros((2, 4), numpy.float32))
    with pytest.raises(type_check.InvalidType, match='Stack') as e:
        F.stack(xs)
    assert 'Expect' in str(e.value)


def test_mismatched_dtypes():
    xs = (numpy.zeros((2, 3), numpy.float32),
          numpy.zeros((2, 3), numpy.float64))
    with pytest.raises(type_check.InvalidType, match='Stack'):
        F.stack(xs)


@pytest.mark.parametrize('axis', [3, -4])
def test_invalid_axis(axis):
    xs = _inputs((2, 3), 2, numpy.float32)
    with pytest.raises(type_check.InvalidType, match='Stack'):
        F.stack(xs, axis)


def test_no_input():
    with pytest.raises(type_check.InvalidType, match='Stack'):
        F.stack(())
