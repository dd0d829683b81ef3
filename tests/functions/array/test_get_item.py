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


BASIC = [
    1,
    -1,
    slice(1, 3),
    slice(None, None, -1),
    slice(3, 0, -2),
    (1, slice(0, 2)),
    (Ellipsis, 2),
    (None, 0, Ellipsis, None),
    (slice(None), None, -1),
    (0, 1, 2),
    (Ellipsis,),
    (),
    slice(2, 2),
]
ADVANCED = [
    numpy.array([0, 2, 2, 0, 1]),
    [3, 1, 1],
    (slice(None), numpy.array([[0, 1], [1, 1]])),
    (numpy.array([0, 0, 3]), numpy.array([1, 1, 2])),
    (numpy.array([0, 0, 3]), slice(None), numpy.array([2, 2, 2])),
    (Ellipsis, [2, 0, 2]),
    numpy.array([True, False, True, True]),
    (slice(None), numpy.array([True, False, True])),
    numpy.random.RandomState(9).uniform(size=(4, 3)) > 0.5,
    numpy.array(2),
    numpy.array([], dtype=numpy.int64),
    (0, 1, True),
    (Ellipsis, numpy.True_),
    (1, numpy.array(False)),
]
SHAPE = (4, 3, 5)


def _ids(slices):
    return repr(slices).replace(' ', '')[:40]


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('slices', BASIC + ADVANCED, ids=_ids)
def test_forward(dtype, slices):
    x = numpy.random.RandomState(0).uniform(-1, 1, SHAPE).astype(dtype)
    y = F.get_item(cpuframe.Variable(x), slices)
    expected = x[slices]
    assert isinstance(y.array, numpy.ndarray)
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, expected)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('slices', BASIC + ADVANCED, ids=_ids)
def test_backward(dtype, slices):
    rng = numpy.random.RandomState(1)
    x = rng.uniform(-1, 1, SHAPE).astype(dtype)
    gy = rng.uniform(-1, 1, numpy.asarray(x[slices]).shape).astype(dtype)
    gradient_check.check_backward(
        lambda x: F.get_item(x, slices), x, gy, **_tols(dtype))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('slices', [
    (1, slice(None, None, -1)),
    (None, Ellipsis, 1),
    numpy.array([0, 2, 2, 0]),
    (slice(None), numpy.array([True, False, True])),
], ids=_ids)
def test_double_backward(dtype, slices):
    rng = numpy.random.RandomState(2)
    x = rng.uniform(-1, 1, SHAPE).astype(dtype)
    gy = rng.uniform(-1, 1, x[slices].shape).astype(dtype)
    ggx = rng.uniform(-1, 1, SHAPE).astype(dtype)
    gradient_check.check_double_backward(
        lambda x: F.get_item(x, slices) ** 2, x, gy, ggx, **_tols(dtype))


@pytest.mark.parametrize('dtype', DTYPES)
def test_repeated_indices_accumulate(dtype):
    x = cpuframe.Variable(numpy.zeros((4, 2), dtype))
    y = F.get_item(x, [0, 2, 2, 2, 0])
    y.grad = numpy.ones((5, 2), dtype)
    y.backward()
    numpy.testing.assert_array_equal(
        x.grad, numpy.array([[2, 2], [0, 0], [3, 3], [0, 0]], dtype))


def test_bool_mask_gradient():
    x = cpuframe.Variable(numpy.arange(6.0).reshape(2, 3))
    mask = numpy.array([[True, False, True], [False, False, True]])
    y = F.get_item(x, mask)
    numpy.testing.assert_array_equal(y.array, [0.0, 2.0, 5.0])
    y.grad = numpy.array([1.0, 2.0, 3.0])
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [[1, 0, 2], [0, 0, 3]])


def test_variable_getitem():
    x = cpuframe.Variable(numpy.arange(12.0).reshape(3, 4))
    y = x[1:, ::-2]
    numpy.testing.assert_array_equal(y.array, x.array[1:, ::-2])
    F.sum(y).backward()
    expected = numpy.zeros((3, 4))
    expected[1:, ::-2] = 1
    numpy.testing.assert_array_equal(x.grad, expected)


def test_index_variable():
    x = numpy.arange(5.0)
    idx = cpuframe.Variable(numpy.array([4, 0]), requires_grad=False)
    numpy.testing.assert_array_equal(F.get_item(x, idx).array, [4.0, 0.0])


def test_0dim_input():
    x = cpuframe.Variable(numpy.array(3.0))
    y = F.get_item(x, ())
    assert y.shape == ()
    assert float(y.array) == 3.0
    y2 = F.get_item(x, None)
    assert y2.shape == (1,)


def test_float_list_rejected():
    with pytest.raises(TypeError, match='get_item'):
        F.get_item(numpy.zeros((3,), numpy.float32), [0.5, 1.0])


def test_too_many_indices():
    with pytest.raises(type_check.InvalidType, match='GetItem'):
        F.get_item(numpy.zeros((2, 3), numpy.float32), (0, 0, 0))


def test_out_of_bounds():
    with pytest.raises(IndexError, match='get_item'):
        F.get_item(numpy.zeros((2, 3), numpy.float32), (5,))
