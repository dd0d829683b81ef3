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


TO_CASES = [
    ((3, 1), (2, 3, 4)),
    ((1,), (3, 2)),
    ((4,), (2, 3, 4)),
    ((2, 1, 3), (2, 5, 3)),
    ((1, 1), (0, 3)),
    ((), (2, 3)),
    ((), ()),
]


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('in_shape,out_shape', TO_CASES)
def test_broadcast_to_forward(dtype, in_shape, out_shape):
    x = numpy.random.RandomState(0).uniform(-1, 1, in_shape).astype(dtype)
    y = F.broadcast_to(cpuframe.Variable(x), out_shape)
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array,
                                     numpy.broadcast_to(x, out_shape))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('in_shape,out_shape', TO_CASES)
def test_broadcast_to_backward(dtype, in_shape, out_shape):
    rng = numpy.random.RandomState(1)
    x = rng.uniform(-1, 1, in_shape).astype(dtype)
    gy = rng.uniform(-1, 1, out_shape).astype(dtype)
    gradient_check.check_backward(
        lambda x: F.broadcast_to(x, out_shape), x, gy, **_tols(dtype))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('in_shape,out_shape', [((3, 1), (2, 3, 4)),
                                                ((4,), (3, 4))])
def test_broadcast_to_double_backward(dtype, in_shape, out_shape):
    rng = numpy.random.RandomState(2)
    x = rng.uniform(-1, 1, in_shape).astype(dtype)
    gy = rng.uniform(-1, 1, out_shape).astype(dtype)
    ggx = rng.uniform(-1, 1, in_shape).astype(dtype)
    gradient_check.check_double_backward(
        lambda x: F.broadcast_to(x, out_shape) ** 2, x, gy, ggx,
        **_tols(dtype))


@pytest.mark.parametrize('in_shape,out_shape', [
    ((3,), (2, 4)), ((2, 3), (3,)), ((2,), ())])
def test_broadcast_to_invalid(in_shape, out_shape):
    with pytest.raises(type_check.InvalidType, match='BroadcastTo'):
        F.broadcast_to(numpy.zeros(in_shape, numpy.float32), out_shape)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shapes', [
    [(3, 1), (1, 4)],
    [(2, 3, 4), (4,), (3, 1)],
    [(2, 3)],
    [(), (2,)],
])
def test_broadcast_forward(dtype, shapes):
    rng = numpy.random.RandomState(0)
    xs = [rng.uniform(-1, 1, s).astype(dtype) for s in shapes]
    ys = F.broadcast(*xs)
    if len(xs) == 1:
        ys = (ys,)
    expected = numpy.broadcast_arrays(*xs)
    assert len(ys) == len(expected)
    for y, e in zip(ys, expected):
        assert y.dtype == dtype
        numpy.testing.assert_array_equal(y.array, e)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shapes', [
    [(3, 1), (1, 4)],
    [(2, 3, 4), (4,), (3, 1)],
    [(), (2,)],
])
def test_broadcast_backward(dtype, shapes):
    rng = numpy.random.RandomState(1)
    xs = tuple(rng.uniform(-1, 1, s).astype(dtype) for s in shapes)
    out = numpy.broadcast_shapes(*shapes)
    gys = tuple(rng.uniform(-1, 1, out).astype(dtype) for _ in shapes)
    gradient_check.check_backward(F.broadcast, xs, gys, **_tols(dtype))


def test_broadcast_backward_one_output_used():
    # The unused output's gradient arrives as zeros.
    a = cpuframe.Variable(numpy.ones((3, 1)))
    b = cpuframe.Variable(numpy.ones((1, 4)))
    ya, yb = F.broadcast(a, b)
    F.sum(ya).backward()
    numpy.testing.assert_array_equal(a.grad, numpy.full((3, 1), 4.0))
    numpy.testing.assert_array_equal(b.grad, numpy.zeros((1, 4)))


def test_broadcast_invalid():
    with pytest.raises(type_check.InvalidType, match='Broadcast'):
        F.broadcast(numpy.zeros((2, 3), numpy.float32),
                    numpy.zeros((4,), numpy.float32))


def test_broadcast_no_input():
    with pytest.raises(ValueError, match='broadcast'):
        F.broadcast()
