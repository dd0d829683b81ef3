import warnings

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

DTYPES = [numpy.float32, numpy.float64]
# (a.shape, b.shape, transa, transb): shapes are as stored, before transposes
CASES = [
    ((2, 3), (3, 4), False, False),
    ((3, 2), (3, 4), True, False),
    ((2, 3), (4, 3), False, True),
    ((3, 2), (4, 3), True, True),
    ((3,), (3, 4), False, False),
    ((2, 3), (3,), False, False),
    ((3,), (3,), False, False),
    ((5, 2, 3), (5, 3, 4), False, False),
    ((5, 3, 2), (5, 4, 3), True, True),
    ((5, 2, 3), (3, 4), False, False),
    ((2, 3), (5, 3, 4), False, False),
    ((2, 1, 2, 3), (3, 3, 4), False, False),
    ((3,), (5, 3, 4), False, False),
]


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


def _expected(a, b, transa, transb):
    if transa and a.ndim >= 2:
        a = numpy.swapaxes(a, -1, -2)
    if transb and b.ndim >= 2:
        b = numpy.swapaxes(b, -1, -2)
    return numpy.matmul(a, b)


def _inputs(rng, a_shape, b_shape, dtype):
    return (rng.uniform(-1, 1, a_shape).astype(dtype),
            rng.uniform(-1, 1, b_shape).astype(dtype))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('a_shape,b_shape,transa,transb', CASES)
def test_forward(dtype, a_shape, b_shape, transa, transb):
    a, b = _inputs(numpy.random.RandomState(0), a_shape, b_shape, dtype)
    y = F.matmul(cpuframe.Variable(a), cpuframe.Variable(b), transa, transb)
    expected = _expected(a, b, transa, transb)
    assert isinstance(y.array, numpy.ndarray) and y.dtype == dtype
    assert y.shape == expected.shape
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('a_shape,b_shape,transa,transb', CASES)
def test_backward(dtype, a_shape, b_shape, transa, transb):
    rng = numpy.random.RandomState(1)
    a, b = _inputs(rng, a_shape, b_shape, dtype)
    y_shape = _expected(a, b, transa, transb).shape
    gy = rng.uniform(-1, 1, y_shape).astype(dtype)
    gradient_check.check_backward(
        lambda a, b: F.matmul(a, b, transa, transb), (a, b), gy,
        **_tols(dtype))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('a_shape,b_shape,transa,transb', CASES)
def test_double_backward(dtype, a_shape, b_shape, transa, transb):
    rng = numpy.random.RandomState(2)
    a, b = _inputs(rng, a_shape, b_shape, dtype)
    y_shape = _expected(a, b, transa, transb).shape
    gy = rng.uniform(-1, 1, y_shape).astype(dtype)
    gga, ggb = _inputs(rng, a_shape, b_shape, dtype)
    gradient_check.check_double_backward(
        lambda a, b: F.matmul(a, b, transa, transb), (a, b), gy, (gga, ggb),
        **_tols(dtype))


def test_matmul_operator():
    rng = numpy.random.RandomState(3)
    a, b = _inputs(rng, (2, 3), (3, 4), numpy.float32)
    va, vb = cpuframe.Variable(a), cpuframe.Variable(b)
    numpy.testing.assert_allclose((va @ vb).array, a @ b, rtol=1e-6)
    numpy.testing.assert_allclose((va @ b).array, a @ b, rtol=1e-6)
    y = a @ vb
    assert isinstance(y, cpuframe.Variable)
    numpy.testing.assert_allclose(y.array, a @ b, rtol=1e-6)
    gradient_check.check_backward(lambda a, b: a @ b, (a, b),
                                  rng.uniform(-1, 1, (2, 4)).astype('f'),
                                  dtype=numpy.float64, atol=1e-3, rtol=1e-3)


def test_matmul_operator_gradients_reach_both_sides():
    a = cpuframe.Variable(numpy.array([[1.0, 2.0]]))
    b = cpuframe.Variable(numpy.array([[3.0], [4.0]]))
    y = a @ b
    y.backward()
    numpy.testing.assert_array_equal(a.grad, [[3.0, 4.0]])
    numpy.testing.assert_array_equal(b.grad, [[1.0], [2.0]])


def test_matmul_operator_with_scalar_is_rejected():
    a = cpuframe.Variable(numpy.ones((2, 2), numpy.float32))
    with pytest.raises(TypeError):
        a @ 2.0
    with pytest.raises(TypeError):
        2.0 @ a


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('a_shape,b_shape,transa,transb', [
    ((5, 2, 3), (5, 3, 4), False, False),
    ((5, 3, 2), (5, 3, 4), True, False),
    ((5, 2, 3), (5, 4, 3), False, True),
    ((5, 3), (5, 3), True, False),
])
def test_batch_matmul(dtype, a_shape, b_shape, transa, transb):
    rng = numpy.random.RandomState(4)
    a, b = _inputs(rng, a_shape, b_shape, dtype)
    a3 = a.reshape(a.shape + (1,)) if a.ndim == 2 else a
    b3 = b.reshape(b.shape + (1,)) if b.ndim == 2 else b
    expected = _expected(a3, b3, transa, transb)
    # Deprecated since Chainer v3; Chainer 7 warns on every call.
    with pytest.warns(DeprecationWarning, match='batch_matmul'):
        y = F.batch_matmul(a, b, transa, transb)
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-6)
    gy = rng.uniform(-1, 1, expected.shape).astype(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        gradient_check.check_backward(
            lambda a, b: F.batch_matmul(a, b, transa, transb), (a, b), gy,
            **_tols(dtype))


@pytest.mark.parametrize('a_shape,b_shape,transa,transb', [
    ((2, 3), (2, 4), False, False),
    ((2, 3), (3, 4), True, False),
    ((2, 3), (3, 4), False, True),
    ((5, 2, 3), (4, 3, 4), False, False),
])
def test_shape_mismatch_is_rejected(a_shape, b_shape, transa, transb):
    a = numpy.zeros(a_shape, numpy.float32)
    b = numpy.zeros(b_shape, numpy.float32)
    with pytest.raises(type_check.InvalidType, match='(?s)MatMul.*Expect'):
        F.matmul(a, b, transa, transb)


def test_inner_dimension_mismatch_names_matmul():
    a = numpy.zeros((2, 3), numpy.float32)
    b = numpy.zeros((2, 4), numpy.float32)
    with pytest.raises(type_check.InvalidType) as e:
        F.matmul(a, b)
    assert 'MatMul' in str(e.value) and 'Expect' in str(e.value)


def test_non_float_dtype_is_rejected():
    a = numpy.zeros((2, 3), numpy.float32)
    b = numpy.zeros((3, 4), numpy.int32)
    with pytest.raises(type_check.InvalidType, match='(?s)MatMul.*Expect'):
        F.matmul(a, b)
