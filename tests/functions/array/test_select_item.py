import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

DTYPES = [numpy.float32, numpy.float64]


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


CASES = [(4, 3), (1, 1), (5, 1), (0, 3)]


def _data(batch, n, dtype, t_dtype=numpy.int32, seed=0):
    rng = numpy.random.RandomState(seed)
    x = rng.uniform(-1, 1, (batch, n)).astype(dtype)
    t = rng.randint(0, n, batch).astype(t_dtype)
    return x, t


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('t_dtype', [numpy.int32, numpy.int64])
@pytest.mark.parametrize('batch,n', CASES)
def test_forward(dtype, t_dtype, batch, n):
    x, t = _data(batch, n, dtype, t_dtype)
    y = F.select_item(cpuframe.Variable(x), t)
    assert y.dtype == dtype
    assert y.shape == (batch,)
    numpy.testing.assert_array_equal(y.array, x[numpy.arange(batch), t])


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('batch,n', CASES)
def test_backward(dtype, batch, n):
    x, t = _data(batch, n, dtype, seed=1)
    gy = numpy.random.RandomState(2).uniform(-1, 1, (batch,)).astype(dtype)
    gradient_check.check_backward(F.select_item, (x, t), gy, **_tols(dtype))


def test_t_as_variable_gets_no_gradient():
    x = cpuframe.Variable(numpy.ones((2, 3)))
    t = cpuframe.Variable(numpy.array([2, 0], numpy.int32))
    F.sum(F.select_item(x, t)).backward()
    numpy.testing.assert_array_equal(x.grad, [[0, 0, 1], [1, 0, 0]])
    assert t.grad is None


@pytest.mark.parametrize('dtype', DTYPES)
def test_double_backward(dtype):
    x, t = _data(4, 3, dtype, seed=3)
    rng = numpy.random.RandomState(4)
    gy = rng.uniform(-1, 1, (4,)).astype(dtype)
    ggx = rng.uniform(-1, 1, x.shape).astype(dtype)
    gradient_check.check_double_backward(
        lambda x, t: F.select_item(x * x, t), (x, t), gy, (ggx, None),
        **_tols(dtype))


@pytest.mark.parametrize('x_shape,t_shape,t_dtype', [
    ((2, 3), (3,), numpy.int32),      # batch mismatch
    ((2, 3), (2,), numpy.float32),    # t not integer
    ((2, 3, 1), (2,), numpy.int32),   # x not 2-D
    ((2, 3), (2, 1), numpy.int32),    # t not 1-D
])
def test_invalid(x_shape, t_shape, t_dtype):
    with pytest.raises(type_check.InvalidType, match='SelectItem') as e:
        F.select_item(numpy.zeros(x_shape, numpy.float32),
                      numpy.zeros(t_shape, t_dtype))
    assert 'Expect' in str(e.value)


@pytest.mark.parametrize('t', [[0, 3], [-1, 0]])
def test_t_out_of_range(t):
    with pytest.raises(ValueError, match='select_item'):
        F.select_item(numpy.zeros((2, 3), numpy.float32),
                      numpy.array(t, numpy.int32))
