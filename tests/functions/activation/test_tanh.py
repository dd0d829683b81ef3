import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.functions.activation.tanh import TanhGrad
from cpuframe.utils import type_check

DTYPES = [numpy.float32, numpy.float64]


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', [(3, 2), (), (2, 0)])
def test_forward(dtype, shape):
    x = numpy.random.RandomState(0).uniform(-3, 3, shape).astype(dtype)
    y = F.tanh(cpuframe.Variable(x))
    assert isinstance(y.array, numpy.ndarray)
    assert y.dtype == dtype and y.shape == shape
    numpy.testing.assert_allclose(y.array, numpy.tanh(x), rtol=1e-6)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', [(3, 2), ()])
def test_backward(dtype, shape):
    rng = numpy.random.RandomState(1)
    x = rng.uniform(-2, 2, shape).astype(dtype)
    gy = rng.uniform(-1, 1, shape).astype(dtype)
    gradient_check.check_backward(F.tanh, x, gy, **_tols(dtype))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', [(3, 2), ()])
def test_double_backward(dtype, shape):
    rng = numpy.random.RandomState(2)
    x = rng.uniform(-2, 2, shape).astype(dtype)
    gy = rng.uniform(-1, 1, shape).astype(dtype)
    ggx = rng.uniform(-1, 1, shape).astype(dtype)
    gradient_check.check_double_backward(F.tanh, x, gy, ggx, **_tols(dtype))


def test_tanh_grad_double_backward():
    # TanhGrad's own backward (third-order terms) against numerics.
    rng = numpy.random.RandomState(3)
    y = rng.uniform(-0.9, 0.9, (4,))
    gy = rng.uniform(-1, 1, (4,))
    ggx = rng.uniform(-1, 1, (4,))
    gggy = rng.uniform(-1, 1, (4,))
    gggx = rng.uniform(-1, 1, (4,))
    gradient_check.check_double_backward(
        lambda y, gy: TanhGrad().apply((y, gy))[0], (y, gy), ggx,
        (gggy, gggx))


def test_gradient_values():
    x = cpuframe.Variable(numpy.array([0.0, 0.5, -1.0]))
    gx, = cpuframe.grad([F.tanh(x)], [x], [numpy.ones(3)],
                        enable_double_backprop=True)
    t = numpy.tanh(x.array)
    numpy.testing.assert_allclose(gx.array, 1 - t * t)
    ggx, = cpuframe.grad([gx], [x], [numpy.ones(3)])
    numpy.testing.assert_allclose(ggx.array, -2 * t * (1 - t * t))


def test_backward_uses_the_output_not_the_input():
    x = cpuframe.Variable(numpy.array([0.3, -0.7]))
    y = F.tanh(x)
    assert x.node.data is None
    y.grad = numpy.ones(2)
    y.backward()
    numpy.testing.assert_allclose(x.grad, 1 - numpy.tanh(x.array) ** 2)


def test_int_input_is_rejected():
    with pytest.raises(type_check.InvalidType, match='(?s)Tanh.*Expect'):
        F.tanh(numpy.arange(3))
