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
    ((3, 4), (3, 4), (3, 4)),
    ((3, 4), (3, 1), (4,)),
    ((4,), (3, 4), (1, 1)),
    ((2, 1, 4), (3, 1), (2, 3, 1)),
    ((0, 2), (0, 2), (0, 2)),
    ((), (), ()),
    ((), (2,), ()),
]


def _data(c_shape, x_shape, y_shape, dtype, seed=0):
    rng = numpy.random.RandomState(seed)
    c = rng.uniform(size=c_shape) > 0.5
    x = rng.uniform(-1, 1, x_shape).astype(dtype)
    y = rng.uniform(-1, 1, y_shape).astype(dtype)
    return c, x, y


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shapes', CASES)
def test_forward(dtype, shapes):
    c, x, y = _data(*shapes, dtype)
    z = F.where(c, cpuframe.Variable(x), cpuframe.Variable(y))
    assert z.dtype == dtype
    numpy.testing.assert_array_equal(z.array, numpy.where(c, x, y))


def test_condition_variable():
    c = cpuframe.Variable(numpy.array([True, False]), requires_grad=False)
    z = F.where(c, numpy.ones(2), numpy.zeros(2))
    numpy.testing.assert_array_equal(z.array, [1.0, 0.0])


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shapes', CASES)
def test_backward(dtype, shapes):
    c, x, y = _data(*shapes, dtype, 1)
    gz = numpy.random.RandomState(2).uniform(
        -1, 1, numpy.where(c, x, y).shape).astype(dtype)
    gradient_check.check_backward(
        lambda x, y: F.where(c, x, y), (x, y), gz, **_tols(dtype))


def test_gradient_values():
    c = numpy.array([True, False, True])
    x = cpuframe.Variable(numpy.ones(3))
    y = cpuframe.Variable(numpy.ones(3))
    F.sum(F.where(c, x, y) * numpy.array([1.0, 2.0, 3.0])).backward()
    numpy.testing.assert_array_equal(x.grad, [1.0, 0.0, 3.0])
    numpy.testing.assert_array_equal(y.grad, [0.0, 2.0, 0.0])


@pytest.mark.parametrize('dtype', DTYPES)
def test_double_backward(dtype):
    c, x, y = _data((3, 4), (3, 4), (4,), dtype, 3)
    rng = numpy.random.RandomState(4)
    gz = rng.uniform(-1, 1, (3, 4)).astype(dtype)
    ggx = rng.uniform(-1, 1, x.shape).astype(dtype)
    ggy = rng.uniform(-1, 1, y.shape).astype(dtype)
    gradient_check.check_double_backward(
        lambda x, y: F.where(c, x * x, y * y), (x, y), gz, (ggx, ggy),
        **_tols(dtype))


def test_non_bool_condition():
    with pytest.raises(type_check.InvalidType, match='Where') as e:
        F.where(numpy.array([1, 0]), numpy.ones(2), numpy.zeros(2))
    assert 'Expect' in str(e.value)


def test_mismatched_dtypes():
    with pytest.raises(type_check.InvalidType, match='Where'):
        F.where(numpy.array([True, False]), numpy.ones(2, numpy.float32),
                numpy.zeros(2, numpy.float64))


def test_unbroadcastable_shapes():
    with pytest.raises(type_check.InvalidType, match='Where'):
        F.where(numpy.array([True, False, True]), numpy.ones(2),
                numpy.zeros(2))


def test_condition_not_array():
    with pytest.raises(TypeError, match='where'):
        F.where([True, False], numpy.ones(2), numpy.zeros(2))
