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
    ((3, 4), 1, True),
    ((3, 4), -1, False),
    ((2, 3, 4), (0, 2), False),
    ((2, 3, 4), (-1, 0), True),
    ((2, 3, 4), (0, 1, 2), False),
    ((5,), 0, False),
    ((), None, False),
]
FUNCS = [
    pytest.param(F.max, numpy.max, id='max'),
    pytest.param(F.min, numpy.min, id='min'),
]


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


def _distinct(rng, shape, dtype):
    """Values at least 0.1 apart, so no two entries tie under perturbation."""
    size = int(numpy.prod(shape))
    x = rng.permutation(size).astype(numpy.float64) * 0.1 - 0.05 * size
    return x.reshape(shape).astype(dtype)


@pytest.mark.parametrize('func,ref', FUNCS)
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,axis,keepdims', CASES)
def test_forward(func, ref, dtype, shape, axis, keepdims):
    x = numpy.random.RandomState(0).uniform(-1, 1, shape).astype(dtype)
    y = func(cpuframe.Variable(x), axis=axis, keepdims=keepdims)
    expected = ref(x, axis=axis, keepdims=keepdims)
    assert isinstance(y.array, numpy.ndarray) and y.dtype == dtype
    assert y.shape == expected.shape
    numpy.testing.assert_array_equal(y.array, expected)


@pytest.mark.parametrize('func', [F.max, F.min])
def test_forward_0dim(func):
    y = func(numpy.array(1.5, numpy.float32))
    assert y.shape == () and y.array == numpy.float32(1.5)


@pytest.mark.parametrize('func,ref', FUNCS)
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,axis,keepdims', CASES)
def test_backward(func, ref, dtype, shape, axis, keepdims):
    rng = numpy.random.RandomState(1)
    x = _distinct(rng, shape, dtype)
    gy_shape = numpy.max(x, axis=axis, keepdims=keepdims).shape
    gy = rng.uniform(-1, 1, gy_shape).astype(dtype)
    gradient_check.check_backward(
        lambda x: func(x, axis=axis, keepdims=keepdims), x, gy,
        **_tols(dtype))


@pytest.mark.parametrize('func,ref', FUNCS)
@pytest.mark.parametrize('shape,axis,keepdims', CASES[2:4])
def test_double_backward(func, ref, shape, axis, keepdims):
    rng = numpy.random.RandomState(2)
    x = _distinct(rng, shape, numpy.float64)
    gy_shape = numpy.max(x, axis=axis, keepdims=keepdims).shape
    gy = rng.uniform(-1, 1, gy_shape)
    ggx = rng.uniform(-1, 1, shape)
    gradient_check.check_double_backward(
        lambda x: func(x, axis=axis, keepdims=keepdims), x, gy, ggx)


@pytest.mark.parametrize('func', [F.max, F.min])
def test_every_tie_gets_the_full_gradient(func):
    # The documented rule: gradient is not split among ties.
    v = 2.0 if func is F.max else -2.0
    x = cpuframe.Variable(numpy.array([[v, 0.0, v], [1.0, v, 0.5]]))
    gx, = cpuframe.grad([func(x, axis=1)], [x], [numpy.array([3.0, 5.0])])
    numpy.testing.assert_array_equal(
        gx.array, [[3.0, 0.0, 3.0], [0.0, 5.0, 0.0]])


def test_max_gradient_is_routed_to_the_argmax():
    x = cpuframe.Variable(numpy.array([[1.0, 4.0, 2.0], [7.0, 0.0, 3.0]]))
    y = F.max(x)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [[0, 0, 0], [1, 0, 0]])


@pytest.mark.parametrize('func', [F.max, F.min])
@pytest.mark.parametrize('axis', [2, -3, (0, 2)])
def test_axis_out_of_range(func, axis):
    with pytest.raises(type_check.InvalidType):
        func(numpy.zeros((2, 3), numpy.float32), axis=axis)


@pytest.mark.parametrize('func', [F.max, F.min])
def test_duplicate_axes(func):
    with pytest.raises(ValueError):
        func(numpy.zeros((2, 3), numpy.float32), axis=(1, -1))


@pytest.mark.parametrize('func', [F.max, F.min])
def test_axis_of_wrong_type(func):
    with pytest.raises(TypeError):
        func(numpy.zeros((2, 3), numpy.float32), axis=[0])


def test_int_input_is_rejected():
    with pytest.raises(type_check.InvalidType, match='(?s)Max.*Expect'):
        F.max(numpy.arange(3))


ARG_FUNCS = [
    pytest.param(F.argmax, numpy.argmax, id='argmax'),
    pytest.param(F.argmin, numpy.argmin, id='argmin'),
]


@pytest.mark.parametrize('func,ref', ARG_FUNCS)
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,axis', [
    ((3, 4), None), ((3, 4), 0), ((3, 4), 1), ((2, 3, 4), -1), ((), None)])
def test_arg_forward(func, ref, dtype, shape, axis):
    x = numpy.random.RandomState(3).uniform(-1, 1, shape).astype(dtype)
    y = func(cpuframe.Variable(x), axis=axis)
    assert isinstance(y, cpuframe.Variable)
    assert y.dtype == numpy.int32
    numpy.testing.assert_array_equal(y.array, ref(x, axis=axis))


@pytest.mark.parametrize('func', [F.argmax, F.argmin])
def test_arg_is_not_differentiable(func):
    x = cpuframe.Variable(numpy.array([[1.0, 3.0], [2.0, 0.0]]))
    y = func(x, axis=1)
    # Computing with the indices leaves no gradient path back to x.
    gx, = cpuframe.grad([y * 1], [x], [numpy.ones(2, numpy.int32)])
    assert gx is None


def test_arg_ties_pick_the_first_index():
    x = numpy.array([1.0, 3.0, 3.0, 0.0])
    assert int(F.argmax(x).array) == 1
    assert int(F.argmin(-x).array) == 1


@pytest.mark.parametrize('func', [F.argmax, F.argmin])
def test_arg_axis_out_of_range(func):
    with pytest.raises(type_check.InvalidType):
        func(numpy.zeros((2, 3), numpy.float32), axis=2)
    with pytest.raises(type_check.InvalidType):
        func(numpy.zeros((2, 3), numpy.float32), axis=-3)


@pytest.mark.parametrize('func', [F.argmax, F.argmin])
def test_arg_axis_tuple_is_rejected(func):
    with pytest.raises(TypeError):
        func(numpy.zeros((2, 3), numpy.float32), axis=(0, 1))
