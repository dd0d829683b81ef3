import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

FUNCS = [
    pytest.param(F.sqrt, numpy.sqrt, id='sqrt'),
    pytest.param(F.rsqrt, lambda x: 1 / numpy.sqrt(x), id='rsqrt'),
]
DTYPES = [numpy.float32, numpy.float64]


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


def _positive(rng, shape, dtype):
    return rng.uniform(0.5, 3.0, shape).astype(dtype)


@pytest.mark.parametrize('func,ref', FUNCS)
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', [(3, 2), ()])
def test_forward(func, ref, dtype, shape):
    x = _positive(numpy.random.RandomState(0), shape, dtype)
    y = func(cpuframe.Variable(x))
    assert isinstance(y.array, numpy.ndarray)
    assert y.dtype == dtype and y.shape == shape
    numpy.testing.assert_allclose(y.array, ref(x), rtol=1e-6)


@pytest.mark.parametrize('func,ref', FUNCS)
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', [(3, 2), ()])
def test_backward(func, ref, dtype, shape):
    rng = numpy.random.RandomState(1)
    x = _positive(rng, shape, dtype)
    gy = rng.uniform(-1, 1, shape).astype(dtype)
    gradient_check.check_backward(func, x, gy, **_tols(dtype))


@pytest.mark.parametrize('func,ref', FUNCS)
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', [(3, 2), ()])
def test_double_backward(func, ref, dtype, shape):
    rng = numpy.random.RandomState(2)
    x = _positive(rng, shape, dtype)
    gy = rng.uniform(-1, 1, shape).astype(dtype)
    ggx = rng.uniform(-1, 1, shape).astype(dtype)
    gradient_check.check_double_backward(func, x, gy, ggx, **_tols(dtype))


def test_gradient_values():
    x = cpuframe.Variable(numpy.array([4.0, 16.0]))
    gx, = cpuframe.grad([F.sqrt(x)], [x], [numpy.ones(2)])
    numpy.testing.assert_allclose(gx.array, [0.25, 0.125])
    gx, = cpuframe.grad([F.rsqrt(x)], [x], [numpy.ones(2)])
    numpy.testing.assert_allclose(gx.array, -0.5 * x.array ** -1.5)


@pytest.mark.parametrize('func,label', [(F.sqrt, 'Sqrt'), (F.rsqrt, 'Rsqrt')])
def test_int_input_is_rejected(func, label):
    with pytest.raises(type_check.InvalidType, match='(?s)' + label + '.*Expect'):
        func(numpy.arange(3))
