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


CASES = [((3, 2, 4), a) for a in (0, 1, 2, -1, -3)] + [
    ((4,), 0), ((1, 3), 0), ((2, 0), 0)]


def _expected(x, axis):
    return [numpy.take(x, i, axis=axis) for i in range(x.shape[axis])]


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,axis', CASES)
def test_forward(dtype, shape, axis):
    x = numpy.random.RandomState(0).uniform(-1, 1, shape).astype(dtype)
    ys = F.separate(cpuframe.Variable(x), axis)
    expected = _expected(x, axis)
    assert isinstance(ys, tuple) and len(ys) == len(expected)
    for y, e in zip(ys, expected):
        assert isinstance(y.array, numpy.ndarray)
        assert y.dtype == dtype
        numpy.testing.assert_array_equal(y.array, e)


def test_default_axis_is_0():
    ys = F.separate(numpy.zeros((3, 2), numpy.float32))
    assert len(ys) == 3 and ys[0].shape == (2,)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,axis', CASES)
def test_backward(dtype, shape, axis):
    rng = numpy.random.RandomState(1)
    x = rng.uniform(-1, 1, shape).astype(dtype)
    gys = tuple(rng.uniform(-1, 1, e.shape).astype(dtype)
                for e in _expected(x, axis))
    gradient_check.check_backward(
        lambda x: F.separate(x, axis), x, gys, **_tols(dtype))


@pytest.mark.parametrize('dtype', DTYPES)
def test_backward_some_outputs_unused(dtype):
    rng = numpy.random.RandomState(2)
    x = rng.uniform(-1, 1, (3, 4)).astype(dtype)
    gys = (None, rng.uniform(-1, 1, (3,)).astype(dtype), None, None)
    gradient_check.check_backward(
        lambda x: F.separate(x, 1), x, gys, **_tols(dtype))


@pytest.mark.parametrize('dtype', DTYPES)
def test_double_backward(dtype):
    rng = numpy.random.RandomState(3)
    x = rng.uniform(-1, 1, (2, 3)).astype(dtype)
    gys = tuple(rng.uniform(-1, 1, (2,)).astype(dtype) for _ in range(3))
    ggx = rng.uniform(-1, 1, x.shape).astype(dtype)
    gradient_check.check_double_backward(
        lambda x: tuple(y ** 2 for y in F.separate(x, -1)), x, gys, ggx,
        **_tols(dtype))


def test_stack_roundtrip():
    x = numpy.random.RandomState(4).uniform(-1, 1, (2, 3, 4))
    numpy.testing.assert_array_equal(
        F.stack(F.separate(x, 1), 1).array, x)


@pytest.mark.parametrize('shape,axis', [((2, 3), 2), ((2, 3), -3), ((), 0)])
def test_invalid_axis(shape, axis):
    with pytest.raises(type_check.InvalidType, match='Separate') as e:
        F.separate(numpy.zeros(shape, numpy.float32), axis)
    assert 'Expect' in str(e.value)
