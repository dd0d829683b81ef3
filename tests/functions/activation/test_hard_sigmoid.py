import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

DTYPES = [numpy.float32, numpy.float64]


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


def _input(shape, dtype, seed=0):
    x = numpy.random.RandomState(seed).uniform(-4, 4, shape)
    x[numpy.abs(numpy.abs(x) - 2.5) < 0.1] = 1.0
    return x.astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', [(3, 4), ()])
def test_forward(dtype, shape):
    x = _input(shape, dtype)
    y = F.hard_sigmoid(x)
    assert y.dtype == dtype and y.shape == shape
    flat = []
    for v in x.astype(numpy.float64).ravel():
        flat.append(0.0 if v < -2.5 else 1.0 if v > 2.5 else 0.2 * v + 0.5)
    numpy.testing.assert_allclose(y.array, numpy.array(flat).reshape(shape),
                                  rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize('dtype', DTYPES)
def test_backward(dtype):
    x = _input((3, 4), dtype)
    gy = numpy.random.RandomState(1).uniform(-1, 1, x.shape).astype(dtype)
    gradient_check.check_backward(F.hard_sigmoid, x, gy, **_tols(dtype))


def test_double_backward():
    rng = numpy.random.RandomState(2)
    x = _input((3, 4), numpy.float64)
    gy, ggx = rng.uniform(-1, 1, (2, 3, 4))
    gradient_check.check_double_backward(F.hard_sigmoid, x, gy, ggx)


def test_int_input_is_rejected():
    with pytest.raises(type_check.InvalidType, match='(?s)HardSigmoid.*Expect'):
        F.hard_sigmoid(numpy.arange(3))
