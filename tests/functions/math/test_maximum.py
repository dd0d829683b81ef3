import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

FUNCS = [
    pytest.param(F.maximum, numpy.maximum, id='maximum'),
    pytest.param(F.minimum, numpy.minimum, id='minimum'),
]
DTYPES = [numpy.float32, numpy.float64]
SHAPES = [((3, 2), (3, 2)), ((3, 2), (3, 1)), ((2,), (3, 2)),
          ((1,), (2, 3)), ((), ()), ((), (2, 3))]


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


def _separated(rng, shapes, dtype):
    """Inputs whose broadcast pairs differ by at least 0.1 (no near-ties)."""
    while True:
        x1 = rng.uniform(-1, 1, shapes[0]).astype(dtype)
        x2 = rng.uniform(-1, 1, shapes[1]).astype(dtype)
        if numpy.abs(x1 - x2).min() >= 0.1:
            return x1, x2


@pytest.mark.parametrize('func,ref', FUNCS)
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shapes', SHAPES)
def test_forward(func, ref, dtype, shapes):
    rng = numpy.random.RandomState(0)
    x1 = rng.uniform(-1, 1, shapes[0]).astype(dtype)
    x2 = rng.uniform(-1, 1, shapes[1]).astype(dtype)
    y = func(cpuframe.Variable(x1), cpuframe.Variable(x2))
    assert isinstance(y.array, numpy.ndarray) and y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, ref(x1, x2))


@pytest.mark.parametrize('func,ref', FUNCS)
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shapes', SHAPES)
def test_backward(func, ref, dtype, shapes):
    rng = numpy.random.RandomState(1)
    x1, x2 = _separated(rng, shapes, dtype)
    gy = rng.uniform(-1, 1, numpy.broadcast_shapes(*shapes)).astype(dtype)
    gradient_check.check_backward(func, (x1, x2), gy, **_tols(dtype))


@pytest.mark.parametrize('func,ref', FUNCS)
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shapes', SHAPES)
def test_double_backward(func, ref, dtype, shapes):
    rng = numpy.random.RandomState(2)
    x1, x2 = _separated(rng, shapes, dtype)
    gy = rng.uniform(-1, 1, numpy.broadcast_shapes(*shapes)).astype(dtype)
    ggx = (rng.uniform(-1, 1, shapes[0]).astype(dtype),
           rng.uniform(-1, 1, shapes[1]).astype(dtype))
    gradient_check.check_double_backward(func, (x1, x2), gy, ggx,
                                         **_tols(dtype))


@pytest.mark.parametrize('func', [F.maximum, F.minimum])
def test_gradient_routing_and_ties(func):
    # At a tie the whole gradient goes to the first argument.
    x1 = cpuframe.Variable(numpy.array([1.0, 2.0, 3.0]))
    x2 = cpuframe.Variable(numpy.array([3.0, 2.0, 1.0]))
    gy = numpy.array([10.0, 20.0, 30.0])
    g1, g2 = cpuframe.grad([func(x1, x2)], [x1, x2], [gy])
    first = [0.0, 20.0, 30.0] if func is F.maximum else [10.0, 20.0, 0.0]
    numpy.testing.assert_array_equal(g1.array, first)
    numpy.testing.assert_array_equal(g2.array, gy - first)


def test_broadcast_gradient_is_summed_back():
    x1 = cpuframe.Variable(numpy.array([[0.0, 5.0], [5.0, 5.0]]))
    x2 = cpuframe.Variable(numpy.array([1.0, 1.0]))
    g1, g2 = cpuframe.grad([F.maximum(x1, x2)], [x1, x2],
                           [numpy.ones((2, 2))])
    numpy.testing.assert_array_equal(g1.array, [[0.0, 1.0], [1.0, 1.0]])
    numpy.testing.assert_array_equal(g2.array, [1.0, 0.0])


@pytest.mark.parametrize('func,label', [(F.maximum, 'Maximum'),
                                        (F.minimum, 'Minimum')])
def test_dtype_mismatch_is_rejected(func, label):
    x1 = numpy.zeros((2, 3), numpy.float32)
    x2 = numpy.zeros((2, 3), numpy.float64)
    with pytest.raises(type_check.InvalidType, match='(?s)' + label +
                       '.*Expect'):
        func(x1, x2)


@pytest.mark.parametrize('func', [F.maximum, F.minimum])
def test_incompatible_shapes_are_rejected(func):
    x1 = numpy.zeros((3, 2), numpy.float32)
    x2 = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(type_check.InvalidType):
        func(x1, x2)


def test_int_inputs_are_rejected():
    with pytest.raises(type_check.InvalidType, match='x1.dtype.kind'):
        F.maximum(numpy.arange(3), numpy.arange(3))
