import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

# (cpuframe function, NumPy reference, input range away from the poles)
FUNCS = [
    pytest.param(F.exp, numpy.exp, (-1.0, 1.0), id='exp'),
    pytest.param(F.log, numpy.log, (0.5, 2.0), id='log'),
    pytest.param(F.log2, numpy.log2, (0.5, 2.0), id='log2'),
    pytest.param(F.log10, numpy.log10, (0.5, 2.0), id='log10'),
    pytest.param(F.log1p, numpy.log1p, (-0.5, 1.0), id='log1p'),
    pytest.param(F.expm1, numpy.expm1, (-1.0, 1.0), id='expm1'),
]
DTYPES = [numpy.float32, numpy.float64]


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


@pytest.mark.parametrize('func,ref,bounds', FUNCS)
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', [(3, 2), (), (0, 4)])
def test_forward(func, ref, bounds, dtype, shape):
    x = numpy.random.RandomState(0).uniform(*bounds, shape).astype(dtype)
    y = func(cpuframe.Variable(x))
    assert isinstance(y.array, numpy.ndarray)
    assert y.dtype == dtype and y.shape == shape
    numpy.testing.assert_allclose(y.array, ref(x), rtol=1e-6)


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


def test_exp_gradient_values():
    x = cpuframe.Variable(numpy.array([0.0, 1.0, 2.0]))
    y = F.exp(x)
    y.grad = numpy.ones(3)
    y.backward()
    numpy.testing.assert_allclose(x.grad, numpy.exp(x.array))


def test_exp_second_derivative_values():
    x = cpuframe.Variable(numpy.array([0.0, 1.0]))
    gx, = cpuframe.grad([F.exp(x)], [x], [numpy.ones(2)],
                        enable_double_backprop=True)
    ggx, = cpuframe.grad([gx], [x], [numpy.ones(2)])
    numpy.testing.assert_allclose(ggx.array, numpy.exp(x.array))


def test_log_0dim_gradient_values():
    x = cpuframe.Variable(numpy.array(4.0, numpy.float32))
    y = F.log(x)
    assert y.shape == ()
    y.backward()
    assert x.grad.shape == () and x.grad.dtype == numpy.float32
    assert x.grad == numpy.float32(0.25)


@pytest.mark.parametrize('func,label', [
    (F.exp, 'Exp'), (F.log, 'Log'), (F.log2, 'Log2'), (F.log10, 'Log10'),
    (F.log1p, 'Log1p'), (F.expm1, 'Expm1')])
def test_int_input_is_rejected(func, label):
    with pytest.raises(type_check.InvalidType) as e:
        func(numpy.arange(3, dtype=numpy.int32))
    msg = str(e.value)
    assert label in msg and 'Expect' in msg and 'x.dtype.kind' in msg
