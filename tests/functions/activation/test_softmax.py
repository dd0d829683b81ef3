import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.functions.activation.softmax import SoftmaxGrad
from cpuframe.utils import type_check

DTYPES = [numpy.float32, numpy.float64]
CASES = [((3, 4), 1), ((3, 4), 0), ((2, 3, 4), -1), ((2, 3, 4), 1),
         ((5,), 0)]


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


def _expected(x, axis):
    x = numpy.moveaxis(x.astype(numpy.float64), axis, -1)
    y = numpy.empty(x.shape)
    for idx in numpy.ndindex(*x.shape[:-1]):
        row = x[idx]
        e = numpy.array([numpy.exp(v - row.max()) for v in row])
        y[idx] = e / e.sum()
    return numpy.moveaxis(y, -1, axis)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,axis', CASES)
def test_forward(dtype, shape, axis):
    x = numpy.random.RandomState(0).uniform(-3, 3, shape).astype(dtype)
    y = F.softmax(x, axis=axis)
    assert y.dtype == dtype and y.shape == shape
    numpy.testing.assert_allclose(y.array, _expected(x, axis), rtol=1e-5)


def test_large_inputs_do_not_overflow():
    with numpy.errstate(over='raise', invalid='raise'):
        y = F.softmax(numpy.array([[1000.0, 1000.0, -1000.0]], numpy.float32))
    numpy.testing.assert_allclose(y.array, [[0.5, 0.5, 0.0]])


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,axis', CASES)
def test_backward(dtype, shape, axis):
    rng = numpy.random.RandomState(1)
    x = rng.uniform(-2, 2, shape).astype(dtype)
    gy = rng.uniform(-1, 1, shape).astype(dtype)
    gradient_check.check_backward(lambda x: F.softmax(x, axis), x, gy,
                                  **_tols(dtype))


@pytest.mark.parametrize('shape,axis', CASES)
def test_double_backward(shape, axis):
    rng = numpy.random.RandomState(2)
    x, gy, ggx = rng.uniform(-2, 2, (3,) + shape)
    gradient_check.check_double_backward(lambda x: F.softmax(x, axis), x,
                                         gy, ggx)


def test_softmax_grad_double_backward():
    rng = numpy.random.RandomState(3)
    y = F.softmax(rng.uniform(-1, 1, (3, 4))).array
    gy, ggx, gggy = rng.uniform(-1, 1, (3, 3, 4))
    gggx = rng.uniform(-1, 1, (3, 4))
    gradient_check.check_double_backward(
        lambda y, gy: SoftmaxGrad(1).apply((y, gy))[0], (y, gy), ggx,
        (gggx, gggy))


def test_backward_uses_the_output():
    x = cpuframe.Variable(numpy.array([[0.1, 0.2]]))
    F.softmax(x)
    assert x.node.data is None


@pytest.mark.parametrize('axis', [2, -3])
def test_axis_out_of_range_is_rejected(axis):
    with pytest.raises(type_check.InvalidType, match='(?s)Softmax.*axis'):
        F.softmax(numpy.zeros((2, 3)), axis=axis)


def test_int_input_is_rejected():
    with pytest.raises(type_check.InvalidType, match='Softmax'):
        F.softmax(numpy.zeros((2, 3), numpy.int32))
