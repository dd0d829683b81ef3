import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

DTYPES = [numpy.float32, numpy.float64]
# (shape, axis, keepdims)
CASES = [
    ((3, 4), None, False),
    ((3, 4), None, True),
    ((3, 4), 0, False),
    ((3, 4), -1, True),
    ((2, 3, 4), (0, 2), False),
    ((2, 3, 4), (-1, 0), True),
    ((2, 3, 4), (0, 1, 2), False),
    ((2, 3, 4), (), False),
    ((5,), 0, False),
    ((), None, False),
]
FUNCS = [
    pytest.param(F.sum, numpy.sum, id='sum'),
    pytest.param(F.mean, numpy.mean, id='mean'),
]


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


@pytest.mark.parametrize('func,ref', FUNCS)
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,axis,keepdims', CASES)
def test_forward(func, ref, dtype, shape, axis, keepdims):
    x = numpy.random.RandomState(0).uniform(-1, 1, shape).astype(dtype)
    y = func(cpuframe.Variable(x), axis=axis, keepdims=keepdims)
    expected = ref(x, axis=axis, keepdims=keepdims)
    assert isinstance(y.array, numpy.ndarray) and y.dtype == dtype
    assert y.shape == expected.shape
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5)


@pytest.mark.parametrize('func,ref', FUNCS)
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,axis,keepdims', CASES)
def test_backward(func, ref, dtype, shape, axis, keepdims):
    rng = numpy.random.RandomState(1)
    x = rng.uniform(-1, 1, shape).astype(dtype)
    gy_shape = numpy.sum(x, axis=axis, keepdims=keepdims).shape
    gy = rng.uniform(-1, 1, gy_shape).astype(dtype)
    gradient_check.check_backward(
        lambda x: func(x, axis=axis, keepdims=keepdims), x, gy,
        **_tols(dtype))


@pytest.mark.parametrize('func,ref', FUNCS)
@pytest.mark.parametrize('shape,axis,keepdims', CASES[2:6])
def test_double_backward(func, ref, shape, axis, keepdims):
    # The function is linear: its second derivative is zero, but the
    # gradient must stay connected (to gy) for double backprop.
    rng = numpy.random.RandomState(2)
    x = rng.uniform(-1, 1, shape)
    gy = rng.uniform(-1, 1, numpy.sum(x, axis=axis, keepdims=keepdims).shape)
    ggx = rng.uniform(-1, 1, shape)
    gradient_check.check_double_backward(
        lambda x: func(x, axis=axis, keepdims=keepdims) ** 2, x, gy, ggx)


def test_sum_gradient_values():
    x = cpuframe.Variable(numpy.arange(6.0).reshape(2, 3))
    gx, = cpuframe.grad([F.sum(x, axis=1)], [x], [numpy.array([1.0, 2.0])])
    numpy.testing.assert_array_equal(gx.array, [[1, 1, 1], [2, 2, 2]])


def test_mean_gradient_values():
    x = cpuframe.Variable(numpy.ones((2, 4), numpy.float32))
    y = F.mean(x)
    assert y.shape == ()
    y.backward()
    numpy.testing.assert_array_equal(x.grad, numpy.full((2, 4), 0.125))
    assert x.grad.dtype == numpy.float32


def test_variable_methods():
    x = cpuframe.Variable(numpy.arange(6.0).reshape(2, 3))
    numpy.testing.assert_array_equal(x.sum(axis=0).array, [3, 5, 7])
    numpy.testing.assert_array_equal(
        x.mean(axis=1, keepdims=True).array, [[1], [4]])


def test_weighted_mean():
    rng = numpy.random.RandomState(4)
    x = rng.uniform(-1, 1, (3, 4))
    w = rng.uniform(0.1, 1, (4,))
    y = F.mean(x, axis=1, weights=w)
    numpy.testing.assert_allclose(y.array,
                                  numpy.average(x, axis=1, weights=w))
    # the weights are differentiable too (the normalizer included)
    gradient_check.check_backward(
        lambda x, w: F.mean(x, axis=1, weights=w), (x, w),
        rng.uniform(-1, 1, (3,)))


def test_sum_0dim():
    y = F.sum(numpy.array(2.5, numpy.float32))
    assert y.shape == () and y.dtype == numpy.float32 and y.array == 2.5


@pytest.mark.parametrize('func', [F.sum, F.mean])
@pytest.mark.parametrize('axis', [2, -3, (0, 5)])
def test_axis_out_of_range(func, axis):
    with pytest.raises(type_check.InvalidType):
        func(numpy.zeros((2, 3), numpy.float32), axis=axis)


@pytest.mark.parametrize('func', [F.sum, F.mean])
def test_duplicate_axes(func):
    with pytest.raises(ValueError):
        func(numpy.zeros((2, 3), numpy.float32), axis=(0, -2))


def test_int_input_is_rejected():
    with pytest.raises(type_check.InvalidType, match='(?s)Sum.*Expect'):
        F.sum(numpy.arange(3))
