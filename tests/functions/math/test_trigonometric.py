import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

# tan's inputs stay well inside (-pi/2, pi/2)
FUNCS = [
    pytest.param(F.sin, numpy.sin, (-3.0, 3.0), id='sin'),
    pytest.param(F.cos, numpy.cos, (-3.0, 3.0), id='cos'),
    pytest.param(F.tan, numpy.tan, (-1.2, 1.2), id='tan'),
]
DTYPES = [numpy.float32, numpy.float64]


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


@pytest.mark.parametrize('func,ref,bounds', FUNCS)
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', [(3, 2), ()])
def test_forward(func, ref, bounds, dtype, shape):
    x = numpy.random.RandomState(0).uniform(*bounds, shape).astype(dtype)
    y = func(cpuframe.Variable(x))
    assert isinstance(y.array, numpy.ndarray)
    assert y.dtype == dtype and y.shape == shape
    numpy.testing.assert_allclose(y.array, ref(x), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize('func,ref,bounds', FUNCS)
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', [(3, 2), ()])
def test_backward(func, ref, bounds, dtype, shape):
    rng = numpy.random.RandomState(1)
    x = rng.uniform(*bounds, shape).astype(dtype)
    gy = rng.uniform(-1, 1, shape).astype(dtype)
    gradient_check.check_backward(func, x, gy, **_tols(dtype))


@pytest.mark.parametrize('func,ref,bounds', FUNCS)
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', [(3, 2), ()])
def test_double_backward(func, ref, bounds, dtype, shape):
    rng = numpy.random.RandomState(2)
    x = rng.uniform(*bounds, shape).astype(dtype)
    gy = rng.uniform(-1, 1, shape).astype(dtype)
    ggx = rng.uniform(-1, 1, shape).astype(dtype)
    gradient_check.check_double_backward(func, x, gy, ggx, **_tols(dtype))


def test_gradient_values():
    x = cpuframe.Variable(numpy.array([0.0, 0.5, 1.0]))
    gy = numpy.ones(3)
    numpy.testing.assert_allclose(
        cpuframe.grad([F.sin(x)], [x], [gy])[0].array, numpy.cos(x.array))
    numpy.testing.assert_allclose(
        cpuframe.grad([F.cos(x)], [x], [gy])[0].array, -numpy.sin(x.array))
    numpy.testing.assert_allclose(
        cpuframe.grad([F.tan(x)], [x], [gy])[0].array,
        1 / numpy.cos(x.array) ** 2)


@pytest.mark.parametrize('func,label', [
    (F.sin, 'Sin'), (F.cos, 'Cos'), (F.tan, 'Tan')])
def test_int_input_is_rejected(func, label):
    with pytest.raises(type_check.InvalidType, match='(?s)' + label + '.*Expect'):
        func(numpy.arange(3))
