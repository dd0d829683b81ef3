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
    ((2, 3), 2, None),
    ((2, 3), 2, 1),
    ((2, 3), (3,), 0),
    ((2, 3), (1, 0, 2), 1),
    ((2, 3), [2, 1], -2),
    ((2, 3), range(6), None),
    ((2, 3, 4), 3, -1),
    ((2, 3), 0, 1),
    ((4,), (0, 1, 2, 3), 0),
    ((0, 3), 2, 0),
    ((), 3, None),
    ((), (2,), None),
]


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,repeats,axis', CASES)
def test_forward(dtype, shape, repeats, axis):
    x = numpy.random.RandomState(0).uniform(-1, 1, shape).astype(dtype)
    y = F.repeat(cpuframe.Variable(x), repeats, axis)
    expected = numpy.repeat(x, list(repeats) if not isinstance(repeats, int)
                            else repeats, axis)
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, expected)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,repeats,axis', CASES)
def test_backward(dtype, shape, repeats, axis):
    rng = numpy.random.RandomState(1)
    x = rng.uniform(-1, 1, shape).astype(dtype)
    out = numpy.repeat(x, list(repeats) if not isinstance(repeats, int)
                       else repeats, axis)
    gy = rng.uniform(-1, 1, out.shape).astype(dtype)
    gradient_check.check_backward(
        lambda x: F.repeat(x, repeats, axis), x, gy, **_tols(dtype))


def test_gradient_values():
    x = cpuframe.Variable(numpy.array([1.0, 2.0, 3.0]))
    y = F.repeat(x, (2, 0, 3))
    y.grad = numpy.arange(5.0)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [0 + 1, 0, 2 + 3 + 4])


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('repeats,axis', [(2, 1), ((1, 0, 2), 1),
                                          ((1, 2, 1, 1, 0, 3), None)])
def test_double_backward(dtype, repeats, axis):
    rng = numpy.random.RandomState(3)
    x = rng.uniform(-1, 1, (2, 3)).astype(dtype)
    gy = rng.uniform(-1, 1, numpy.repeat(x, repeats, axis).shape)
    ggx = rng.uniform(-1, 1, x.shape).astype(dtype)
    gradient_check.check_double_backward(
        lambda x: F.repeat(x, repeats, axis) ** 2, x, gy.astype(dtype), ggx,
        **_tols(dtype))


@pytest.mark.parametrize('repeats,axis', [((1, 2), 1), ((1, 2, 3), 0),
                                          ((1, 2), None), (2, 2), (2, -3)])
def test_invalid(repeats, axis):
    with pytest.raises(type_check.InvalidType, match='Repeat') as e:
        F.repeat(numpy.zeros((2, 3), numpy.float32), repeats, axis)
    assert 'Expect' in str(e.value)


@pytest.mark.parametrize('repeats', [-1, (1, -1, 1)])
def test_negative_repeats(repeats):
    with pytest.raises(ValueError, match='repeat'):
        F.repeat(numpy.zeros((3,), numpy.float32), repeats)


@pytest.mark.parametrize('repeats,axis', [(1.5, None), ((1, 'a'), None),
                                          (2, 1.0), (2, True)])
def test_bad_types(repeats, axis):
    with pytest.raises(TypeError, match='repeat'):
        F.repeat(numpy.zeros((2, 3), numpy.float32), repeats, axis)
