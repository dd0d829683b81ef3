"""F.hstack, F.vstack and F.dstack against NumPy's, tested alike (NumPy
path only: these are views and copies, no intel64 route)."""
import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

DTYPES = [numpy.float32, numpy.float64]

# name: (function, NumPy's, the class name in errors, the input shapes of
# the forward/backward cases, of the double-backward case, and of cases
# that must be rejected)
FUNCS = {
    'hstack': (F.hstack, numpy.hstack, 'Hstack', [
        [(2, 3), (2, 1)],
        [(3,), (4,), (1,)],
        [(2, 3, 4), (2, 1, 4)],
        [(2,), (2,)],
        [(2, 0), (2, 2)],
        [(5,)],
        [(), ()],
        [(), (3,)],
    ], [(2, 3), (2, 1)],
        [[(2, 3), (3, 3)], [(2, 3), (2,)], [(2, 3, 4), (2, 3, 5)]]),
    'vstack': (F.vstack, numpy.vstack, 'Vstack', [
        [(2, 3), (1, 3)],
        [(3,), (3,), (3,)],
        [(3,), (2, 3)],
        [(2, 3, 4), (1, 3, 4)],
        [(0, 2), (1, 2)],
        [(4, 2)],
        [(), ()],
    ], [(3,), (2, 3)],
        [[(2, 3), (2, 4)], [(3,), (4,)], [(2, 3, 4), (2, 3)]]),
    'dstack': (F.dstack, numpy.dstack, 'Dstack', [
        [(2, 3), (2, 3)],
        [(3,), (3,)],
        [(2, 3, 1), (2, 3, 2), (2, 3)],
        [(2, 3, 4, 5), (2, 3, 1, 5)],
        [(2, 3, 0), (2, 3, 1)],
        [(4, 2)],
        [(), ()],
    ], [(2, 3), (2, 3, 2)],
        [[(2, 3), (3, 3)], [(3,), (2,)], [(2, 3, 4, 5), (2, 3, 4)]]),
}
CASES = [(name, shapes) for name in sorted(FUNCS) for shapes in FUNCS[name][3]]
REJECTED = [(name, shapes) for name in sorted(FUNCS)
            for shapes in FUNCS[name][5]]


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


def _inputs(shapes, dtype, seed=0):
    rng = numpy.random.RandomState(seed)
    return tuple(rng.uniform(-1, 1, s).astype(dtype) for s in shapes)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('name,shapes', CASES)
def test_forward(name, dtype, shapes):
    fn, ref = FUNCS[name][:2]
    xs = _inputs(shapes, dtype)
    y = fn([cpuframe.Variable(x) for x in xs])
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, ref(xs))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('name,shapes', CASES)
def test_backward(name, dtype, shapes):
    fn, ref = FUNCS[name][:2]
    xs = _inputs(shapes, dtype, 1)
    gy = numpy.random.RandomState(2).uniform(
        -1, 1, ref(xs).shape).astype(dtype)
    gradient_check.check_backward(
        lambda *xs: fn(xs), xs, gy, **_tols(dtype))


@pytest.mark.parametrize('name', sorted(FUNCS))
@pytest.mark.parametrize('dtype', DTYPES)
def test_double_backward(name, dtype):
    fn, ref = FUNCS[name][:2]
    xs = _inputs(FUNCS[name][4], dtype, 3)
    rng = numpy.random.RandomState(4)
    gy = rng.uniform(-1, 1, ref(xs).shape).astype(dtype)
    ggxs = tuple(rng.uniform(-1, 1, x.shape).astype(dtype) for x in xs)
    gradient_check.check_double_backward(
        lambda *xs: fn(xs) ** 2, xs, gy, ggxs, **_tols(dtype))


@pytest.mark.parametrize('name,shapes', REJECTED)
def test_mismatched_shapes(name, shapes):
    fn, _, label = FUNCS[name][:3]
    with pytest.raises(type_check.InvalidType, match=label) as e:
        fn(_inputs(shapes, numpy.float32))
    assert 'Expect' in str(e.value)


@pytest.mark.parametrize('name', sorted(FUNCS))
def test_mismatched_dtypes(name):
    fn, _, label = FUNCS[name][:3]
    xs = (numpy.zeros(2, numpy.float32), numpy.zeros(2, numpy.float64))
    with pytest.raises(type_check.InvalidType, match=label):
        fn(xs)


@pytest.mark.parametrize('name', sorted(FUNCS))
def test_no_input(name):
    fn, _, label = FUNCS[name][:3]
    with pytest.raises(type_check.InvalidType, match=label):
        fn(())
