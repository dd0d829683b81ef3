import itertools

import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


def _default_outsize(size, k, s, p, cover_all):
    return s * (size - 1) + k - 2 * p - (s - 1 if cover_all else 0)


def _naive(x, k, s, p, outs):
    """Add every input element over its window of an output of ``outs``."""
    y = numpy.zeros(x.shape[:2] + tuple(outs), x.dtype)
    for o in itertools.product(*map(range, x.shape[2:])):
        for off in itertools.product(*map(range, k)):
            pos = tuple(oi * si + ki - pi
                        for oi, si, ki, pi in zip(o, s, off, p))
            if all(0 <= q < d for q, d in zip(pos, outs)):
                y[(Ellipsis,) + pos] += x[(Ellipsis,) + o]
    return y


@pytest.mark.parametrize('ksize', [2, 3])
@pytest.mark.parametrize('stride', [1, 2, None])
@pytest.mark.parametrize('pad', [0, 1])
@pytest.mark.parametrize('cover_all', [True, False])
@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
def test_forward_default_outsize(ksize, stride, pad, cover_all, dtype):
    x = numpy.random.RandomState(0).uniform(-1, 1, (2, 3, 3, 4)).astype(dtype)
    s = ksize if stride is None else stride
    outs = tuple(_default_outsize(d, ksize, s, pad, cover_all)
                 for d in x.shape[2:])
    y = F.unpooling_2d(x, ksize, stride, pad, cover_all=cover_all)
    assert y.shape == x.shape[:2] + outs and y.dtype == dtype
    numpy.testing.assert_allclose(
        y.array, _naive(x, (ksize,) * 2, (s,) * 2, (pad,) * 2, outs),
        rtol=1e-6)


@pytest.mark.parametrize('ksize,stride,pad,outsize,cover_all', [
    (2, 2, 0, (6, 8), False),
    (2, 2, 0, (6, 8), True),
    (2, 2, 0, (5, 7), True),
    (3, 2, 1, (5, 7), False),
    (3, 2, 1, (4, 6), True),
    ((2, 3), (1, 2), (0, 1), (4, 7), False),
])
def test_forward_outsize(ksize, stride, pad, outsize, cover_all):
    x = numpy.random.RandomState(1).normal(size=(1, 2, 3, 4))
    y = F.unpooling_2d(x, ksize, stride, pad, outsize, cover_all)
    k = ksize if isinstance(ksize, tuple) else (ksize,) * 2
    s = stride if isinstance(stride, tuple) else (stride,) * 2
    p = pad if isinstance(pad, tuple) else (pad,) * 2
    numpy.testing.assert_allclose(y.array, _naive(x, k, s, p, outsize))


def test_nearest_neighbour_upscaling():
    x = numpy.arange(4, dtype=numpy.float32).reshape(1, 1, 2, 2)
    y = F.unpooling_2d(x, 2, outsize=(4, 4))
    numpy.testing.assert_array_equal(
        y.array[0, 0], x[0, 0].repeat(2, axis=0).repeat(2, axis=1))


@pytest.mark.parametrize('ksize', [2, 3])
@pytest.mark.parametrize('stride', [1, 2, None])
@pytest.mark.parametrize('pad', [0, 1])
@pytest.mark.parametrize('cover_all', [True, False])
def test_backward(ksize, stride, pad, cover_all):
    rng = numpy.random.RandomState(2)
    x = rng.uniform(-1, 1, (1, 2, 3, 3))

    def f(x):
        return F.unpooling_2d(x, ksize, stride, pad, cover_all=cover_all)
    y = f(x)
    gy = rng.uniform(-1, 1, y.shape)
    ggx = rng.uniform(-1, 1, x.shape)
    gradient_check.check_backward(f, x, gy)
    gradient_check.check_double_backward(f, x, gy, ggx)


@pytest.mark.parametrize('ndim', [1, 3])
@pytest.mark.parametrize('ksize,stride,pad', [(2, None, 0), (3, 2, 1)])
@pytest.mark.parametrize('cover_all', [True, False])
def test_nd(ndim, ksize, stride, pad, cover_all):
    rng = numpy.random.RandomState(3)
    x = rng.uniform(-1, 1, (1, 2) + (3, 2, 3)[:ndim])
    s = ksize if stride is None else stride
    outs = tuple(_default_outsize(d, ksize, s, pad, cover_all)
                 for d in x.shape[2:])
    y = F.unpooling_nd(x, ksize, stride, pad, cover_all=cover_all)
    numpy.testing.assert_allclose(
        y.array, _naive(x, (ksize,) * ndim, (s,) * ndim, (pad,) * ndim, outs))
    wrapper = F.unpooling_1d if ndim == 1 else F.unpooling_3d
    numpy.testing.assert_array_equal(
        wrapper(x, ksize, stride, pad, cover_all=cover_all).array, y.array)
    gy = rng.uniform(-1, 1, y.shape)
    gradient_check.check_backward(
        lambda x: F.unpooling_nd(x, ksize, stride, pad, cover_all=cover_all),
        x, gy)


def test_outsize_mismatch():
    # Pooling (8, 8) with ksize 2 gives (4, 4), not the input's (3, 3).
    with pytest.raises(type_check.InvalidType, match='Unpooling2D'):
        F.unpooling_2d(numpy.zeros((1, 1, 3, 3), numpy.float32), 2,
                       outsize=(8, 8))


def test_wrong_ndim():
    with pytest.raises(type_check.InvalidType, match='Unpooling2D'):
        F.unpooling_2d(numpy.zeros((1, 3, 3), numpy.float32), 2)


def test_int_input():
    with pytest.raises(type_check.InvalidType, match='Unpooling2D'):
        F.unpooling_2d(numpy.zeros((1, 1, 3, 3), numpy.int32), 2)


def test_nonpositive_output():
    with pytest.raises(type_check.InvalidType, match='Unpooling2D'):
        F.unpooling_2d(numpy.zeros((1, 1, 1, 1), numpy.float32), 2, pad=1)
