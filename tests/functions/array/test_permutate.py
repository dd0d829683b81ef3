import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


@pytest.mark.parametrize('shape, axis', [((4,), 0), ((4, 3), 0), ((3, 4), 1),
                                         ((2, 3, 4), -1), ((2, 4, 3), -2)])
@pytest.mark.parametrize('inv', [False, True])
@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
def test_forward_backward(shape, axis, inv, dtype):
    rng = numpy.random.RandomState(0)
    x = rng.randn(*shape).astype(dtype)
    n = shape[axis]
    indices = rng.permutation(n).astype(numpy.int32)
    y = F.permutate(x, indices, axis=axis, inv=inv)
    expected = numpy.empty_like(x)
    for i in range(n):
        src = numpy.take(x, [i if inv else indices[i]], axis=axis)
        dst = indices[i] if inv else i
        idx = [slice(None)] * x.ndim
        idx[axis] = slice(dst, dst + 1)
        expected[tuple(idx)] = src
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, expected)

    xd = x.astype(numpy.float64)
    gy, ggx = rng.randn(*shape), rng.randn(*shape)

    def f(x):
        return F.permutate(x, indices, axis=axis, inv=inv)
    gradient_check.check_backward(f, xd, gy)
    gradient_check.check_double_backward(f, xd, gy, ggx)


def test_inverse_undoes():
    x = numpy.arange(12.).reshape(3, 4)
    idx = numpy.array([3, 1, 0, 2], numpy.int32)
    y = F.permutate(F.permutate(x, idx, axis=1), idx, axis=1, inv=True)
    numpy.testing.assert_array_equal(y.array, x)


def test_indices_variable():
    idx = cpuframe.Variable(numpy.array([1, 0], numpy.int32))
    y = F.permutate(numpy.array([1., 2.]), idx)
    numpy.testing.assert_array_equal(y.array, [2., 1.])


def test_bad_inputs():
    x = numpy.ones((3, 2))
    with pytest.raises(ValueError, match='permutation'):
        F.permutate(x, numpy.array([0, 0, 1], numpy.int32))
    with pytest.raises(ValueError, match='1-D integer'):
        F.permutate(x, numpy.array([0., 1., 2.]))
    with pytest.raises(type_check.InvalidType):
        F.permutate(x, numpy.array([0, 1], numpy.int32))
    with pytest.raises(type_check.InvalidType):
        F.permutate(x, numpy.array([0, 1], numpy.int32), axis=2)
    with pytest.raises(TypeError, match='axis'):
        F.permutate(x, numpy.array([0, 1], numpy.int32), axis=1.0)
