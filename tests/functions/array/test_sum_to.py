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


CASES = [
    ((2, 3, 4), (3, 1)),
    ((2, 3, 4), (4,)),
    ((2, 3, 4), (1, 3, 1)),
    ((3, 2), (1,)),
    ((3, 2), ()),
    ((0, 3), (3,)),
]


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('in_shape,out_shape', CASES)
def test_forward(dtype, in_shape, out_shape):
    x = numpy.random.RandomState(0).uniform(-1, 1, in_shape).astype(dtype)
    y = F.sum_to(cpuframe.Variable(x), out_shape)
    assert y.dtype == dtype
    assert y.shape == out_shape
    lead = len(in_shape) - len(out_shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(out_shape) if s == 1)
    expected = x.sum(axis=axes, keepdims=True).reshape(out_shape)
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-6)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('in_shape,out_shape', CASES)
def test_backward(dtype, in_shape, out_shape):
    rng = numpy.random.RandomState(1)
    x = rng.uniform(-1, 1, in_shape).astype(dtype)
    gy = rng.uniform(-1, 1, out_shape).astype(dtype)
    gradient_check.check_backward(
        lambda x: F.sum_to(x, out_shape), x, gy, **_tols(dtype))


@pytest.mark.parametrize('dtype', DTYPES)
def test_double_backward(dtype):
    rng = numpy.random.RandomState(2)
    x = rng.uniform(-1, 1, (2, 3, 4)).astype(dtype)
    gy = rng.uniform(-1, 1, (3, 1)).astype(dtype)
    ggx = rng.uniform(-1, 1, x.shape).astype(dtype)
    gradient_check.check_double_backward(
        lambda x: F.sum_to(x ** 2, (3, 1)), x, gy, ggx, **_tols(dtype))


def test_same_shape_is_identity():
    x = numpy.ones((2, 3), numpy.float32)
    numpy.testing.assert_array_equal(F.sum_to(x, (2, 3)).array, x)


@pytest.mark.parametrize('in_shape,out_shape', [
    ((2, 3), (2,)), ((3,), (2, 3)), ((2, 3), (4, 3))])
def test_invalid(in_shape, out_shape):
    with pytest.raises(type_check.InvalidType, match='SumTo'):
        F.sum_to(numpy.zeros(in_shape, numpy.float32), out_shape)
