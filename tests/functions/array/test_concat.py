"""The intel64 parity tests of this op: tests/backends/intel64/test_concat.py.
"""
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
    ([(2, 3), (2, 4)], 1),
    ([(2, 3), (2, 4)], -1),
    ([(2, 3), (5, 3), (1, 3)], 0),
    ([(2, 3, 4), (2, 1, 4), (2, 2, 4)], -2),
    ([(4,), (3,)], 0),
    ([(2, 3)], 1),
    ([(2, 0), (2, 3)], 1),
]


def _inputs(shapes, dtype, seed=0):
    rng = numpy.random.RandomState(seed)
    return tuple(rng.uniform(-1, 1, s).astype(dtype) for s in shapes)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shapes,axis', CASES)
def test_forward(dtype, shapes, axis):
    xs = _inputs(shapes, dtype)
    y = F.concat([cpuframe.Variable(x) for x in xs], axis=axis)
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, numpy.concatenate(xs, axis))


def test_default_axis_is_1():
    xs = _inputs([(2, 3), (2, 1)], numpy.float32)
    assert F.concat(xs).shape == (2, 4)


def test_arrays_and_variables_mixed():
    a, b = _inputs([(2, 3), (2, 1)], numpy.float64)
    va = cpuframe.Variable(a)
    y = F.concat((va, b))
    F.sum(y).backward()
    numpy.testing.assert_array_equal(va.grad, numpy.ones_like(a))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shapes,axis', CASES)
def test_backward(dtype, shapes, axis):
    xs = _inputs(shapes, dtype, 1)
    gy = numpy.random.RandomState(2).uniform(
        -1, 1, numpy.concatenate(xs, axis).shape).astype(dtype)
    gradient_check.check_backward(
        lambda *xs: F.concat(xs, axis), xs, gy, **_tols(dtype))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shapes,axis', [
    ([(2, 3), (2, 4)], 1), ([(2, 3), (1, 3), (3, 3)], -2)])
def test_double_backward(dtype, shapes, axis):
    xs = _inputs(shapes, dtype, 3)
    rng = numpy.random.RandomState(4)
    gy = rng.uniform(-1, 1, numpy.concatenate(xs, axis).shape).astype(dtype)
    ggxs = tuple(rng.uniform(-1, 1, x.shape).astype(dtype) for x in xs)
    gradient_check.check_double_backward(
        lambda *xs: F.concat(xs, axis) ** 2, xs, gy, ggxs, **_tols(dtype))


def test_mismatched_shapes():
    xs = _inputs([(2, 3), (3, 4)], numpy.float32)
    with pytest.raises(type_check.InvalidType, match='Concat') as e:
        F.concat(xs, axis=1)
    assert 'Expect' in str(e.value)


def test_mismatched_ndim():
    xs = _inputs([(2, 3), (2, 3, 1)], numpy.float32)
    with pytest.raises(type_check.InvalidType, match='Concat'):
        F.concat(xs, axis=0)


def test_mismatched_dtypes():
    a = numpy.zeros((2, 3), numpy.float32)
    b = numpy.zeros((2, 3), numpy.float64)
    with pytest.raises(type_check.InvalidType, match='Concat'):
        F.concat((a, b), axis=0)


@pytest.mark.parametrize('axis', [2, -3])
def test_invalid_axis(axis):
    xs = _inputs([(2, 3), (2, 3)], numpy.float32)
    with pytest.raises(type_check.InvalidType, match='Concat') as e:
        F.concat(xs, axis=axis)
    assert 'Expect' in str(e.value)


def test_0dim_inputs():
    xs = (numpy.array(1.0), numpy.array(2.0))
    with pytest.raises(type_check.InvalidType, match='Concat'):
        F.concat(xs, axis=0)


def test_no_input():
    with pytest.raises(type_check.InvalidType, match='Concat'):
        F.concat((), axis=0)


def test_non_int_axis():
    with pytest.raises(TypeError, match='concat'):
        F.concat(_inputs([(2, 3)], numpy.float32), axis=1.5)
