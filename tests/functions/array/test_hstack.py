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
    [(2, 3), (2, 1)],
    [(3,), (4,), (1,)],
    [(2, 3, 4), (2, 1, 4)],
    [(2,), (2,)],
    [(2, 0), (2, 2)],
    [(5,)],
    [(), ()],
    [(), (3,)],
]


def _inputs(shapes, dtype, seed=0):
    rng = numpy.random.RandomState(seed)
    return tuple(rng.uniform(-1, 1, s).astype(dtype) for s in shapes)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shapes', CASES)
def test_forward(dtype, shapes):
    xs = _inputs(shapes, dtype)
    y = F.hstack([cpuframe.Variable(x) for x in xs])
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, numpy.hstack(xs))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shapes', CASES)
def test_backward(dtype, shapes):
    xs = _inputs(shapes, dtype, 1)
    gy = numpy.random.RandomState(2).uniform(
        -1, 1, numpy.hstack(xs).shape).astype(dtype)
    gradient_check.check_backward(
        lambda *xs: F.hstack(xs), xs, gy, **_tols(dtype))


@pytest.mark.parametrize('dtype', DTYPES)
def test_double_backward(dtype):
    xs = _inputs([(2, 3), (2, 1)], dtype, 3)
    rng = numpy.random.RandomState(4)
    gy = rng.uniform(-1, 1, (2, 4)).astype(dtype)
    ggxs = tuple(rng.uniform(-1, 1, x.shape).astype(dtype) for x in xs)
    gradient_check.check_double_backward(
        lambda *xs: F.hstack(xs) ** 2, xs, gy, ggxs, **_tols(dtype))


@pytest.mark.parametrize('shapes', [
    [(2, 3), (3, 3)], [(2, 3), (2,)], [(2, 3, 4), (2, 3, 5)]])
def test_mismatched_shapes(shapes):
    with pytest.raises(type_check.InvalidType, match='Hstack') as e:
        F.hstack(_inputs(shapes, numpy.float32))
    assert 'Expect' in str(e.value)


def test_mismatched_dtypes():
    xs = (numpy.zeros(2, numpy.float32), numpy.zeros(2, numpy.float64))
    with pytest.raises(type_check.InvalidType, match='Hstack'):
        F.hstack(xs)


def test_no_input():
    with pytest.raises(type_check.InvalidType, match='Hstack'):
        F.hstack(())
