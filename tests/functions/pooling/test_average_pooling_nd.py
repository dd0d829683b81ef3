"""The intel64 parity tests of this op: tests/backends/intel64/test_pooling.py
and test_edge_values.py.
"""
import itertools

import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

SHAPES = {1: (2, 3, 7), 2: (1, 2, 5, 4), 3: (1, 2, 4, 3, 5)}


def _naive(x, k, s, p, pad_value):
    """Window means; pad_value None divides by the covered input elements."""
    dims = x.shape[2:]
    outs = tuple((d + 2 * pi - ki) // si + 1
                 for d, ki, si, pi in zip(dims, k, s, p))
    y = numpy.zeros(x.shape[:2] + outs)
    for o in itertools.product(*map(range, outs)):
        total, count = 0, 0
        for off in itertools.product(*map(range, k)):
            pos = tuple(oi * si + ki - pi
                        for oi, si, ki, pi in zip(o, s, off, p))
            if all(0 <= q < d for q, d in zip(pos, dims)):
                total = total + x[(Ellipsis,) + pos]
                count += 1
        y[(Ellipsis,) + o] = total / (numpy.prod(k) if pad_value == 0
                                      else count)
    return y


@pytest.mark.parametrize('ndim', [1, 2, 3])
@pytest.mark.parametrize('ksize', [2, 3])
@pytest.mark.parametrize('stride', [1, 2, None])
@pytest.mark.parametrize('pad', [0, 1])
@pytest.mark.parametrize('pad_value', [0, None])
def test_forward(ndim, ksize, stride, pad, pad_value):
    x = numpy.random.RandomState(0).uniform(-1, 1, SHAPES[ndim]).astype(
        numpy.float32)
    s = ksize if stride is None else stride
    y = F.average_pooling_nd(x, ksize, stride, pad, pad_value)
    assert y.dtype == numpy.float32
    expected = _naive(x, (ksize,) * ndim, (s,) * ndim, (pad,) * ndim,
                      pad_value)
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('ndim', [1, 3])
@pytest.mark.parametrize('ksize', [2, 3])
@pytest.mark.parametrize('stride', [1, 2, None])
@pytest.mark.parametrize('pad', [0, 1])
@pytest.mark.parametrize('pad_value', [0, None])
def test_backward(ndim, ksize, stride, pad, pad_value):
    shape = (1, 2, 5) if ndim == 1 else (1, 1, 4, 3, 4)
    rng = numpy.random.RandomState(1)
    x = rng.uniform(-1, 1, shape)

    def f(x):
        return F.average_pooling_nd(x, ksize, stride, pad, pad_value)
    y = f(x)
    gy = rng.uniform(-1, 1, y.shape)
    ggx = rng.uniform(-1, 1, x.shape)
    gradient_check.check_backward(f, x, gy)
    gradient_check.check_double_backward(f, x, gy, ggx)


def test_pad_value_none_ignores_padding():
    x = numpy.full((1, 1, 3, 3), 2.0)
    y = F.average_pooling_nd(x, 3, 1, 1, pad_value=None)
    numpy.testing.assert_allclose(y.array, 2.0)
    y0 = F.average_pooling_nd(x, 3, 1, 1)
    numpy.testing.assert_allclose(y0.array[0, 0, 0, 0], 2.0 * 4 / 9)


def test_2d_agrees_with_average_pooling_2d():
    x = numpy.random.RandomState(2).normal(size=(2, 3, 6, 5))
    numpy.testing.assert_allclose(F.average_pooling_nd(x, 3, 2, 1).array,
                                  F.average_pooling_2d(x, 3, 2, 1).array)


def test_1d_and_3d_wrappers():
    x1 = numpy.random.RandomState(3).normal(size=(1, 2, 6))
    numpy.testing.assert_allclose(F.average_pooling_1d(x1, 2).array,
                                  F.average_pooling_nd(x1, 2).array)
    x3 = numpy.random.RandomState(4).normal(size=(1, 1, 2, 4, 4))
    assert F.average_pooling_3d(x3, 2).shape == (1, 1, 1, 2, 2)
    with pytest.raises(ValueError, match='average_pooling_3d'):
        F.average_pooling_3d(x1, 2)


def test_bad_pad_value():
    with pytest.raises(ValueError, match='AveragePoolingND'):
        F.average_pooling_nd(numpy.zeros((1, 1, 4), numpy.float32), 2,
                             pad_value=1)


def test_too_few_axes():
    with pytest.raises(type_check.InvalidType, match='AveragePoolingND'):
        F.average_pooling_nd(numpy.zeros((3, 4), numpy.float32), 2)


def test_int_input():
    with pytest.raises(type_check.InvalidType, match='AveragePoolingND'):
        F.average_pooling_nd(numpy.zeros((1, 1, 4), numpy.int32), 2)
