import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

DTYPES = [numpy.float32, numpy.float64]
# (shape, pool_size, axis)
CASES = [((2, 6), 3, 1), ((2, 6), 2, -1), ((4, 3), 2, 0),
         ((2, 4, 3), 2, 1), ((2, 3, 4), 4, 2), ((2, 4, 3), 1, 1)]


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


def _input(shape, dtype, seed=0):
    # distinct values, far apart, so that every group has a clear maximum
    rng = numpy.random.RandomState(seed)
    size = int(numpy.prod(shape))
    return (rng.permutation(size) * 0.1).reshape(shape).astype(dtype)


def _expected(x, pool_size, axis):
    axis %= x.ndim
    out_shape = list(x.shape)
    out_shape[axis] //= pool_size
    y = numpy.empty(out_shape)
    for idx in numpy.ndindex(*out_shape):
        k = idx[axis]
        values = []
        for j in range(pool_size):
            src = list(idx)
            src[axis] = k * pool_size + j
            values.append(x[tuple(src)])
        y[idx] = max(values)
    return y


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,pool_size,axis', CASES)
def test_forward(dtype, shape, pool_size, axis):
    x = _input(shape, dtype)
    y = F.maxout(x, pool_size, axis)
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, _expected(x, pool_size, axis))


def test_default_axis_is_1():
    assert F.maxout(_input((2, 6, 2), numpy.float32), 3).shape == (2, 2, 2)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,pool_size,axis', CASES)
def test_backward(dtype, shape, pool_size, axis):
    x = _input(shape, dtype)
    out_shape = _expected(x, pool_size, axis).shape
    gy = numpy.random.RandomState(1).uniform(-1, 1, out_shape).astype(dtype)
    gradient_check.check_backward(lambda x: F.maxout(x, pool_size, axis),
                                  x, gy, eps=1e-2, **_tols(dtype))


def test_double_backward():
    rng = numpy.random.RandomState(2)
    x = _input((2, 6), numpy.float64)
    gy = rng.uniform(-1, 1, (2, 2))
    ggx = rng.uniform(-1, 1, (2, 6))
    gradient_check.check_double_backward(lambda x: F.maxout(x, 3), x, gy,
                                         ggx, eps=1e-2)


def test_indivisible_axis_is_rejected():
    with pytest.raises(ValueError, match='maxout'):
        F.maxout(numpy.zeros((2, 5)), 2)


@pytest.mark.parametrize('pool_size', [0, -2])
def test_nonpositive_pool_size_is_rejected(pool_size):
    with pytest.raises(ValueError, match='maxout'):
        F.maxout(numpy.zeros((2, 4)), pool_size)


def test_non_int_pool_size_is_rejected():
    with pytest.raises(TypeError, match='maxout'):
        F.maxout(numpy.zeros((2, 4)), 2.0)


def test_axis_out_of_range_is_rejected():
    with pytest.raises(ValueError, match='maxout'):
        F.maxout(numpy.zeros((2, 4)), 2, axis=2)


def test_int_input_is_rejected():
    with pytest.raises(type_check.InvalidType):
        F.maxout(numpy.zeros((2, 4), numpy.int32), 2)
