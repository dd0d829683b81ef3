"""The intel64 parity tests of this op:
tests/backends/intel64/test_convolution.py.
"""
import itertools

import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

OPTIONS = list(itertools.product([1, 2], [0, 2], [1, 2, (2, 1)],
                                 [False, True]))


def _inputs(rng, dtype):
    return (rng.uniform(-1, 1, (2, 3, 7, 6)).astype(dtype),
            rng.uniform(-1, 1, (4, 3, 3, 2)).astype(dtype),
            rng.uniform(-1, 1, (4,)).astype(dtype))


@pytest.mark.parametrize('stride,pad,dilate,cover_all', OPTIONS)
def test_forward(naive_conv, stride, pad, dilate, cover_all):
    x, W, b = _inputs(numpy.random.RandomState(0), numpy.float32)
    # positional order: stride, pad, dilate, cover_all
    y = F.dilated_convolution_2d(x, W, b, stride, pad, dilate, cover_all)
    expected = naive_conv(x, W, b, stride, pad, dilate, 1, cover_all)
    assert y.dtype == numpy.float32 and y.shape == expected.shape
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize('stride,pad,dilate,cover_all', OPTIONS)
def test_backward(stride, pad, dilate, cover_all):
    rng = numpy.random.RandomState(1)
    x, W, b = _inputs(rng, numpy.float64)

    def f(x, W, b):
        return F.dilated_convolution_2d(x, W, b, stride, pad, dilate,
                                        cover_all)

    gradient_check.check_backward(f, (x, W, b),
                                  rng.uniform(-1, 1, f(x, W, b).shape))


def test_double_backward():
    rng = numpy.random.RandomState(2)
    x, W, b = _inputs(rng, numpy.float64)

    def f(x, W, b):
        return F.dilated_convolution_2d(x, W, b, pad=2, dilate=2)

    gy = rng.uniform(-1, 1, f(x, W, b).shape)
    ggs = tuple(rng.uniform(-1, 1, a.shape) for a in (x, W, b))
    gradient_check.check_double_backward(f, (x, W, b), gy, ggs)


def test_channel_mismatch():
    with pytest.raises(type_check.InvalidType,
                       match='(?s)DilatedConvolution2DFunction.*W.shape'):
        F.dilated_convolution_2d(numpy.zeros((1, 3, 5, 5), numpy.float32),
                                 numpy.zeros((2, 2, 3, 3), numpy.float32))
