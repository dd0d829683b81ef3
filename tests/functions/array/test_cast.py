import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check

FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize('in_dtype', FLOATS + [numpy.int32, numpy.bool_])
@pytest.mark.parametrize('out_dtype', FLOATS + [numpy.int64])
@pytest.mark.parametrize('shape', [(3, 2), (), (0,)])
def test_forward(in_dtype, out_dtype, shape):
    x = (numpy.random.RandomState(0).uniform(-3, 3, shape)).astype(in_dtype)
    y = F.cast(cpuframe.Variable(x, requires_grad=False), out_dtype)
    assert y.dtype == out_dtype
    assert y.shape == shape
    numpy.testing.assert_array_equal(y.array, x.astype(out_dtype))


@pytest.mark.parametrize('typ', [numpy.float64, 'float64', numpy.dtype('f8')])
def test_dtype_spellings(typ):
    y = F.cast(numpy.zeros(2, numpy.float32), typ)
    assert y.dtype == numpy.float64


@pytest.mark.parametrize('in_dtype,out_dtype', [
    (numpy.float32, numpy.float64),
    (numpy.float64, numpy.float32),
    (numpy.float64, numpy.float64),
    (numpy.float32, numpy.float16),
])
@pytest.mark.parametrize('shape', [(3, 2), ()])
def test_backward(in_dtype, out_dtype, shape):
    rng = numpy.random.RandomState(1)
    x = numpy.asarray(rng.uniform(-1, 1, shape)).astype(in_dtype)
    gy = numpy.asarray(rng.uniform(-1, 1, shape)).astype(out_dtype)
    tol = 1e-5 if numpy.dtype(out_dtype).itemsize == 8 and \
        numpy.dtype(in_dtype).itemsize == 8 else 3e-3
    gradient_check.check_backward(
        lambda x: F.cast(x, out_dtype), x, gy, atol=tol, rtol=tol,
        eps=1e-2)


def test_gradient_dtype_is_input_dtype():
    x = cpuframe.Variable(numpy.ones(3, numpy.float32))
    y = F.cast(x, numpy.float64)
    F.sum(y * y).backward()
    assert x.grad.dtype == numpy.float32
    numpy.testing.assert_array_equal(x.grad, numpy.full(3, 2, numpy.float32))


def test_double_backward():
    rng = numpy.random.RandomState(2)
    x = rng.uniform(-1, 1, (3, 2))
    gy = rng.uniform(-1, 1, (3, 2)).astype(numpy.float32)
    ggx = rng.uniform(-1, 1, (3, 2))
    gradient_check.check_double_backward(
        lambda x: F.cast(x, numpy.float32) ** 2, x, gy, ggx, atol=1e-3,
        rtol=1e-3)


def test_invalid_dtype():
    with pytest.raises(TypeError):
        F.cast(numpy.zeros(2, numpy.float32), 'not-a-dtype')
