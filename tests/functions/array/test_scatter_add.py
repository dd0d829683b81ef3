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


SHAPE = (4, 3)
CASES = [
    (1, (3,)),
    (slice(1, 3), (2, 3)),
    ((slice(None), slice(None, None, -2)), (4, 2)),
    ([0, 2, 0, 0], (4, 3)),
    (numpy.array([[1, 1], [3, 1]]), (2, 2, 3)),
    ((numpy.array([0, 0, 3]), numpy.array([1, 1, 2])), (3,)),
    ((Ellipsis, [2, 2]), (4, 2)),
    (numpy.array([True, False, True, True]), (3, 3)),
    ((None, 2), (1, 3)),
    ([1, 1], (3,)),            # broadcast b over the indexed rows
    (slice(None), ()),         # a 0-dim b added everywhere
]


def _ids(slices):
    return repr(slices).replace(' ', '')[:40]


def _expected(a, slices, b):
    y = a.copy()
    from cpuframe.functions.array.get_item import _normalize_slices
    numpy.add.at(y, _normalize_slices(slices), b)
    return y


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('slices,b_shape', CASES, ids=_ids)
def test_forward(dtype, slices, b_shape):
    rng = numpy.random.RandomState(0)
    a = rng.uniform(-1, 1, SHAPE).astype(dtype)
    b = rng.uniform(-1, 1, b_shape).astype(dtype)
    a_before = a.copy()
    y = F.scatter_add(cpuframe.Variable(a), slices, cpuframe.Variable(b))
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, _expected(a, slices, b),
                                  rtol=1e-6)
    numpy.testing.assert_array_equal(a, a_before)


def test_repeated_indices_add_up():
    y = F.scatter_add(numpy.zeros(3, numpy.float32), [0, 0, 2],
                      numpy.array([1, 2, 4], numpy.float32))
    numpy.testing.assert_array_equal(y.array, [3, 0, 4])


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('slices,b_shape', CASES, ids=_ids)
def test_backward(dtype, slices, b_shape):
    rng = numpy.random.RandomState(1)
    a = rng.uniform(-1, 1, SHAPE).astype(dtype)
    b = rng.uniform(-1, 1, b_shape).astype(dtype)
    gy = rng.uniform(-1, 1, SHAPE).astype(dtype)
    gradient_check.check_backward(
        lambda a, b: F.scatter_add(a, slices, b), (a, b), gy, **_tols(dtype))


def test_gradient_of_b_with_repeats():
    a = cpuframe.Variable(numpy.zeros(3))
    b = cpuframe.Variable(numpy.zeros(4))
    y = F.scatter_add(a, [0, 0, 2, 0], b)
    y.grad = numpy.array([1.0, 2.0, 3.0])
    y.backward()
    numpy.testing.assert_array_equal(a.grad, [1.0, 2.0, 3.0])
    numpy.testing.assert_array_equal(b.grad, [1.0, 1.0, 3.0, 1.0])


@pytest.mark.parametrize('dtype', DTYPES)
def test_double_backward(dtype):
    rng = numpy.random.RandomState(2)
    a = rng.uniform(-1, 1, SHAPE).astype(dtype)
    b = rng.uniform(-1, 1, (3, 3)).astype(dtype)
    gy = rng.uniform(-1, 1, SHAPE).astype(dtype)
    gga = rng.uniform(-1, 1, a.shape).astype(dtype)
    ggb = rng.uniform(-1, 1, b.shape).astype(dtype)
    gradient_check.check_double_backward(
        lambda a, b: F.scatter_add(a * a, [0, 2, 0], b * b), (a, b), gy,
        (gga, ggb), **_tols(dtype))


def test_mismatched_b_shape():
    with pytest.raises(type_check.InvalidType, match='ScatterAdd') as e:
        F.scatter_add(numpy.zeros((4, 3), numpy.float32), [0, 1],
                      numpy.zeros((3, 3), numpy.float32))
    assert 'Expect' in str(e.value)


def test_mismatched_dtype():
    with pytest.raises(type_check.InvalidType, match='ScatterAdd'):
        F.scatter_add(numpy.zeros((4, 3), numpy.float32), 0,
                      numpy.zeros((3,), numpy.float64))


def test_index_out_of_bounds():
    with pytest.raises(type_check.InvalidType, match='ScatterAdd'):
        F.scatter_add(numpy.zeros((4, 3), numpy.float32), [0, 4],
                      numpy.zeros((2, 3), numpy.float32))
