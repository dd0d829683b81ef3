import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

ALPHA = 1.6732632423543772848170429916717
SCALE = 1.0507009873554804934193349852946


def _input(shape, seed=0):
    x = numpy.random.RandomState(seed).uniform(-2, 2, shape)
    x[numpy.abs(x) < 0.1] = 0.5
    return x


def _expected(x, alpha, scale):
    flat = [scale * (v if v >= 0 else alpha * (numpy.exp(v) - 1))
            for v in x.ravel()]
    return numpy.array(flat).reshape(x.shape)


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('params', [{}, {'alpha': 1.0, 'scale': 2.0}])
def test_forward(dtype, params):
    x = _input((3, 4)).astype(dtype)
    y = F.selu(x, **params)
    assert y.dtype == dtype and y.shape == x.shape
    expected = _expected(x.astype(numpy.float64), params.get('alpha', ALPHA),
                         params.get('scale', SCALE))
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-6)


def test_backward_and_double_backward():
    rng = numpy.random.RandomState(1)
    x = _input((3, 4))
    gy, ggx = rng.uniform(-1, 1, (2, 3, 4))
    gradient_check.check_backward(F.selu, x, gy)
    gradient_check.check_double_backward(F.selu, x, gy, ggx)


def test_int_input_is_rejected():
    with pytest.raises(type_check.InvalidType, match='ELU'):
        F.selu(numpy.arange(3))
