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
    ((2, 6), 3, 1),
    ((2, 6), [1, 4], 1),
    ((2, 6), (1, 4), -1),
    ((6, 2), numpy.array([2, 2, 5]), 0),
    ((2, 3, 4), 2, -1),
    ((2, 3, 4), [], 1),
    ((2, 3, 4), [0, 3], 1),
    ((4,), 1, 0),
    ((2, 0), 2, 1),
]


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,ios,axis', CASES)
def test_forward(dtype, shape, ios, axis):
    x = numpy.random.RandomState(0).uniform(-1, 1, shape).astype(dtype)
    ys = F.split_axis(cpuframe.Variable(x), ios, axis)
    expected = numpy.split(x, ios, axis)
    assert isinstance(ys, tuple)
    assert len(ys) == len(expected)
    for y, e in zip(ys, expected):
        assert y.dtype == dtype
        numpy.testing.assert_array_equal(y.array, e)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,ios,axis', CASES)
def test_backward(dtype, shape, ios, axis):
    rng = numpy.random.RandomState(1)
    x = rng.uniform(-1, 1, shape).astype(dtype)
    gys = tuple(rng.uniform(-1, 1, e.shape).astype(dtype)
                for e in numpy.split(x, ios, axis))
    gradient_check.check_backward(
        lambda x: F.split_axis(x, ios, axis), x, gys, **_tols(dtype))


@pytest.mark.parametrize('dtype', DTYPES)
def test_backward_some_outputs_unused(dtype):
    # Outputs 0 and 2 get no gradient; the engine hands zero-filled
    # Variables to backward, which must still concatenate them.
    rng = numpy.random.RandomState(2)
    x = rng.uniform(-1, 1, (3, 6)).astype(dtype)
    gys = (None, rng.uniform(-1, 1, (3, 2)).astype(dtype), None)
    gradient_check.check_backward(
        lambda x: F.split_axis(x, [1, 3], 1), x, gys, **_tols(dtype))
    v = cpuframe.Variable(x)
    ys = F.split_axis(v, [1, 3], 1)
    F.sum(ys[1]).backward()
    expected = numpy.zeros_like(x)
    expected[:, 1:3] = 1
    numpy.testing.assert_array_equal(v.grad, expected)


def test_backward_zero_filled_grad_outputs():
    # backward itself, given explicit zero-filled gradient Variables.
    x = cpuframe.Variable(numpy.arange(6.0).reshape(2, 3))
    ys = F.split_axis(x, [1], 1)
    node = ys[0].creator_node
    gys = (cpuframe.Variable(numpy.zeros((2, 1)), requires_grad=False),
           cpuframe.Variable(numpy.ones((2, 2)), requires_grad=False))
    gx, = node.backward((0,), gys)
    numpy.testing.assert_array_equal(gx.array, [[0, 1, 1], [0, 1, 1]])


@pytest.mark.parametrize('dtype', DTYPES)
def test_double_backward(dtype):
    rng = numpy.random.RandomState(3)
    x = rng.uniform(-1, 1, (2, 6)).astype(dtype)
    gys = tuple(rng.uniform(-1, 1, (2, 2)).astype(dtype) for _ in range(3))
    ggx = rng.uniform(-1, 1, x.shape).astype(dtype)
    gradient_check.check_double_backward(
        lambda x: tuple(y ** 2 for y in F.split_axis(x, 3, 1)),
        x, gys, ggx, **_tols(dtype))


def test_force_tuple():
    x = numpy.zeros((2, 3), numpy.float32)
    y = F.split_axis(x, 1, 1, force_tuple=False)
    assert isinstance(y, cpuframe.Variable)
    assert y.shape == (2, 3)
    ys = F.split_axis(x, 1, 1)
    assert isinstance(ys, tuple) and len(ys) == 1
    ys = F.split_axis(x, 3, 1, force_tuple=False)
    assert isinstance(ys, tuple) and len(ys) == 3


def test_concat_roundtrip():
    x = numpy.random.RandomState(4).uniform(-1, 1, (4, 5))
    ys = F.split_axis(x, [2, 3], axis=1)
    numpy.testing.assert_array_equal(F.concat(ys, axis=1).array, x)


@pytest.mark.parametrize('ios,axis', [
    (4, 1),        # not divisible
    ([1, 7], 1),   # index past the end
    ([3, 1], 1),   # descending
    ([-7], 1),     # negative index before the start ([-1] counts from
                   # the end, as in NumPy and Chainer)
    (2, 2),        # axis out of range
    (2, -3),
])
def test_invalid(ios, axis):
    with pytest.raises(type_check.InvalidType, match='SplitAxis') as e:
        F.split_axis(numpy.zeros((2, 6), numpy.float32), ios, axis)
    assert 'Expect' in str(e.value)


@pytest.mark.parametrize('ios', [0, -2])
def test_nonpositive_sections(ios):
    with pytest.raises(ValueError, match='split_axis'):
        F.split_axis(numpy.zeros((2, 6), numpy.float32), ios, 1)


def test_bad_indices_type():
    with pytest.raises(TypeError, match='split_axis'):
        F.split_axis(numpy.zeros((2, 6), numpy.float32), 'ab', 1)
