import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

DTYPES = [numpy.float32, numpy.float64]
# lengths sorted longest first, and the trailing shape of every element
CASES = [
    ([4, 2, 1], (2,)),
    ([3, 3, 3], ()),
    ([1], (2, 3)),
    ([5, 5, 2, 2, 1], (1,)),
    ([3, 1, 0, 0], (2,)),
]


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


def _inputs(lengths, tail, dtype, seed=0):
    rng = numpy.random.RandomState(seed)
    return [rng.uniform(-1, 1, (n,) + tail).astype(dtype) for n in lengths]


def _expected(xs):
    steps = []
    for t in range(len(xs[0])):
        steps.append(numpy.stack([x[t] for x in xs if len(x) > t]))
    return steps


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('lengths,tail', CASES)
def test_forward(dtype, lengths, tail):
    xs = _inputs(lengths, tail, dtype)
    ys = F.transpose_sequence([cpuframe.Variable(x) for x in xs])
    expected = _expected(xs)
    assert isinstance(ys, tuple) and len(ys) == len(expected)
    for y, e in zip(ys, expected):
        assert isinstance(y, cpuframe.Variable) and y.dtype == dtype
        numpy.testing.assert_array_equal(y.array, e)


def test_example():
    xs = [numpy.array([0, 1, 2, 3]), numpy.array([4, 5]), numpy.array([6])]
    ys = F.transpose_sequence(xs)
    assert [y.array.tolist() for y in ys] == [[0, 4, 6], [1, 5], [2], [3]]


@pytest.mark.parametrize('lengths,tail', CASES[:4])
def test_round_trip(lengths, tail):
    xs = _inputs(lengths, tail, numpy.float64)
    back = F.transpose_sequence(F.transpose_sequence(xs))
    assert len(back) == len(xs)
    for b, x in zip(back, xs):
        numpy.testing.assert_array_equal(b.array, x)


def test_empty_list():
    assert F.transpose_sequence([]) == ()


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('lengths,tail', CASES)
def test_backward(dtype, lengths, tail):
    xs = tuple(_inputs(lengths, tail, dtype, seed=1))
    rng = numpy.random.RandomState(2)
    gys = tuple(rng.uniform(-1, 1, e.shape).astype(dtype)
                for e in _expected(xs))
    gradient_check.check_backward(
        lambda *xs: F.transpose_sequence(xs), xs, gys, **_tols(dtype))


def test_backward_zero_length_gradient_shapes():
    xs = [cpuframe.Variable(x) for x in _inputs([2, 1, 0], (3,),
                                                numpy.float64)]
    ys = F.transpose_sequence(xs)
    F.sum(F.concat(ys, axis=0)).backward()
    assert [x.grad.shape for x in xs] == [(2, 3), (1, 3), (0, 3)]
    numpy.testing.assert_array_equal(xs[0].grad, numpy.ones((2, 3)))


def test_backward_some_outputs_unused():
    xs = tuple(_inputs([3, 2], (2,), numpy.float64, seed=3))
    rng = numpy.random.RandomState(4)
    gys = (None, rng.uniform(-1, 1, (2, 2)), None)
    gradient_check.check_backward(
        lambda *xs: F.transpose_sequence(xs), xs, gys)


@pytest.mark.parametrize('lengths,tail', CASES[:3])
def test_double_backward(lengths, tail):
    xs = tuple(_inputs(lengths, tail, numpy.float64, seed=5))
    rng = numpy.random.RandomState(6)
    gys = tuple(rng.uniform(-1, 1, e.shape) for e in _expected(xs))
    ggxs = tuple(rng.uniform(-1, 1, x.shape) for x in xs)

    def func(*xs):
        return tuple(y * y for y in F.transpose_sequence(xs))

    gradient_check.check_double_backward(func, xs, gys, ggxs)


@pytest.mark.parametrize('xs', [
    [numpy.zeros((1, 2)), numpy.zeros((2, 2))],          # not sorted
    [numpy.zeros((2, 2)), numpy.zeros((1, 3))],          # trailing shape
    [numpy.zeros((2, 2)), numpy.zeros((1, 2), numpy.float32)],  # dtype
    [numpy.zeros(()), numpy.zeros(())],                  # 0-dim
    [numpy.zeros((2, 2)), numpy.zeros(2)],               # ndim
], ids=['unsorted', 'shape', 'dtype', 'scalar', 'ndim'])
def test_invalid(xs):
    with pytest.raises(type_check.InvalidType, match='TransposeSequence'):
        F.transpose_sequence(xs)
