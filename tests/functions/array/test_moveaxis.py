import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

SHAPE = (2, 3, 4)


def _check(func, ref):
    rng = numpy.random.RandomState(0)
    x = rng.uniform(-1, 1, SHAPE)
    y = func(x.astype(numpy.float32))
    exp = ref(x)
    assert y.dtype == numpy.float32 and y.shape == exp.shape
    numpy.testing.assert_allclose(y.array, exp, rtol=1e-6)
    gy = rng.uniform(-1, 1, exp.shape)
    gradient_check.check_backward(func, x, gy)
    gradient_check.check_double_backward(
        lambda x: func(x) ** 2, x, gy, rng.uniform(-1, 1, SHAPE))


def _ref_moveaxis(x, src, dst):
    # independent: compute the permutation by enumerating positions
    src = [s % x.ndim for s in numpy.atleast_1d(src)]
    dst = [d % x.ndim for d in numpy.atleast_1d(dst)]
    perm = [None] * x.ndim
    for s, d in zip(src, dst):
        perm[d] = s
    rest = iter(a for a in range(x.ndim) if a not in src)
    perm = [p if p is not None else next(rest) for p in perm]
    return x.transpose(perm)


@pytest.mark.parametrize('src,dst', [(0, 2), (-1, 0), (1, 1), ((0, 1), (2, 0)),
                                     ((2, 0), (0, 1)), ((), ())])
def test_moveaxis(src, dst):
    _check(lambda x: F.moveaxis(x, src, dst),
           lambda x: _ref_moveaxis(x, src, dst))


def _ref_rollaxis(x, axis, start):
    axis %= x.ndim
    if start < 0:
        start += x.ndim
    perm = list(range(x.ndim))
    perm.remove(axis)
    perm.insert(start - 1 if start > axis else start, axis)
    return x.transpose(perm)


@pytest.mark.parametrize('axis,start', [(2, 0), (0, 3), (0, 2), (1, 0),
                                        (-1, 1), (2, -3), (1, -1)])
def test_rollaxis(axis, start):
    _check(lambda x: F.rollaxis(x, axis, start),
           lambda x: _ref_rollaxis(x, axis, start))
    assert F.rollaxis(numpy.zeros(SHAPE), axis, start).shape == \
        numpy.rollaxis(numpy.zeros(SHAPE), axis, start).shape


def test_bad_inputs():
    x = numpy.zeros(SHAPE)
    with pytest.raises(type_check.InvalidType, match='Moveaxis'):
        F.moveaxis(x, 3, 0)
    with pytest.raises(ValueError, match='moveaxis'):
        F.moveaxis(x, (0, 1), 0)
    with pytest.raises(ValueError, match='moveaxis'):
        F.moveaxis(x, (0, 0), (1, 2))
    with pytest.raises(type_check.InvalidType, match='Rollaxis'):
        F.rollaxis(x, 3)
    with pytest.raises(type_check.InvalidType, match='Rollaxis'):
        F.rollaxis(x, 0, 4)
