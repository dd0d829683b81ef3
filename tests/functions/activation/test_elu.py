"""The intel64 parity tests of this op:
tests/backends/intel64/test_activation.py and test_edge_values.py.
"""
import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.functions.activation.elu import ELUGrad
from cpuframe.utils import type_check

DTYPES = [numpy.float32, numpy.float64]
ALPHAS = [1.0, 0.5, 2.0]


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


def _input(shape, dtype, seed=0):
    x = numpy.random.RandomState(seed).uniform(-2, 2, shape)
    x[numpy.abs(x) < 0.1] = 0.5
    return x.astype(dtype)


def _expected(x, alpha):
    flat = [v if v >= 0 else alpha * (numpy.exp(v) - 1)
            for v in x.astype(numpy.float64).ravel()]
    return numpy.array(flat).reshape(x.shape)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('alpha', ALPHAS)
@pytest.mark.parametrize('shape', [(3, 4), ()])
def test_forward(dtype, alpha, shape):
    x = _input(shape, dtype)
    y = F.elu(x, alpha=alpha)
    assert y.dtype == dtype and y.shape == shape
    numpy.testing.assert_allclose(y.array, _expected(x, alpha), rtol=1e-6,
                                  atol=1e-7)


def test_large_inputs_do_not_overflow():
    with numpy.errstate(over='raise', invalid='raise'):
        y = F.elu(numpy.array([1000.0, -1000.0], numpy.float32))
    numpy.testing.assert_allclose(y.array, [1000.0, -1.0])


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('alpha', ALPHAS)
def test_backward(dtype, alpha):
    x = _input((3, 4), dtype)
    gy = numpy.random.RandomState(1).uniform(-1, 1, x.shape).astype(dtype)
    gradient_check.check_backward(lambda x: F.elu(x, alpha), x, gy,
                                  **_tols(dtype))


@pytest.mark.parametrize('alpha', ALPHAS)
def test_double_backward(alpha):
    rng = numpy.random.RandomState(2)
    x = _input((3, 4), numpy.float64)
    gy, ggx = rng.uniform(-1, 1, (2, 3, 4))
    gradient_check.check_double_backward(lambda x: F.elu(x, alpha), x, gy,
                                         ggx)


def test_elu_grad_double_backward():
    rng = numpy.random.RandomState(3)
    x = _input((5,), numpy.float64)
    gy, ggx, gggx, gggy = rng.uniform(-1, 1, (4, 5))
    gradient_check.check_double_backward(
        lambda x, gy: ELUGrad(1.3).apply((x, gy))[0], (x, gy), ggx,
        (gggx, gggy))


def test_int_input_is_rejected():
    with pytest.raises(type_check.InvalidType, match='(?s)ELU.*Expect'):
        F.elu(numpy.arange(3))
