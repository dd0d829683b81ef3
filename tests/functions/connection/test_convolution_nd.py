"""The intel64 parity tests of this op:
tests/backends/intel64/test_convolution.py and test_edge_values.py.
"""
import itertools

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

# (spatial size, kernel size) for N = 1 and N = 3
SHAPES = {1: ((7,), (3,)), 3: ((4, 3, 5), (2, 2, 3))}
OPTIONS = list(itertools.product([1, 2], [0, 1], [1, 2], [1, 2],
                                 [False, True]))


def _inputs(rng, nd, groups, nobias, dtype, c=4, o=4):
    size, k = SHAPES[nd]
    x = rng.uniform(-1, 1, (2, c) + size).astype(dtype)
    W = rng.uniform(-1, 1, (o, c // groups) + k).astype(dtype)
    b = None if nobias else rng.uniform(-1, 1, (o,)).astype(dtype)
    return x, W, b


def _conv(stride, pad, dilate, groups, cover_all):
    def f(x, W, b=None):
        return F.convolution_nd(x, W, b, stride, pad, cover_all, dilate,
                                groups)
    return f


@pytest.mark.parametrize('nd', [1, 3])
@pytest.mark.parametrize('stride,pad,dilate,groups,cover_all', OPTIONS)
def test_forward(naive_conv, nd, stride, pad, dilate, groups, cover_all):
    rng = numpy.random.RandomState(0)
    x, W, b = _inputs(rng, nd, groups, False, numpy.float32)
    y = _conv(stride, pad, dilate, groups, cover_all)(x, W, b)
    expected = naive_conv(x, W, b, stride, pad, dilate, groups, cover_all)
    assert y.dtype == numpy.float32 and y.shape == expected.shape
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize('nd', [1, 3])
@pytest.mark.parametrize('nobias', [False, True])
@pytest.mark.parametrize('stride,pad,dilate,groups,cover_all', OPTIONS)
def test_backward(nd, stride, pad, dilate, groups, cover_all, nobias):
    rng = numpy.random.RandomState(1)
    x, W, b = _inputs(rng, nd, groups, nobias, numpy.float64)
    f = _conv(stride, pad, dilate, groups, cover_all)
    gy = rng.uniform(-1, 1, f(x, W, b).shape)
    args = (x, W) if b is None else (x, W, b)
    gradient_check.check_backward(f, args, gy)


@pytest.mark.parametrize('nd', [1, 3])
def test_double_backward(nd):
    rng = numpy.random.RandomState(2)
    x, W, b = _inputs(rng, nd, 2, False, numpy.float64)
    f = _conv(2, 1, 1, 2, True)
    gy = rng.uniform(-1, 1, f(x, W, b).shape)
    ggs = tuple(rng.uniform(-1, 1, a.shape) for a in (x, W, b))
    gradient_check.check_double_backward(f, (x, W, b), gy, ggs)


def test_2d_matches_convolution_2d():
    rng = numpy.random.RandomState(3)
    x = rng.uniform(-1, 1, (2, 4, 5, 6))
    W = rng.uniform(-1, 1, (6, 2, 3, 3))
    numpy.testing.assert_allclose(
        F.convolution_nd(x, W, stride=2, pad=1, dilate=2, groups=2).array,
        F.convolution_2d(x, W, stride=2, pad=1, dilate=2, groups=2).array)


@pytest.mark.parametrize('func,nd', [(F.convolution_1d, 1),
                                     (F.convolution_3d, 3)])
def test_fixed_dimension_wrappers(naive_conv, func, nd):
    rng = numpy.random.RandomState(4)
    x, W, b = _inputs(rng, nd, 1, False, numpy.float64)
    numpy.testing.assert_allclose(func(x, W, b, pad=1).array,
                                  naive_conv(x, W, b, pad=1))
    with pytest.raises(ValueError, match=func.__name__):
        func(numpy.zeros((2, 4, 5, 5)), W)


def test_variable_inputs_and_gradients_have_shapes():
    rng = numpy.random.RandomState(5)
    x, W, b = (cpuframe.Variable(a) for a in
               _inputs(rng, 3, 1, False, numpy.float32))
    y = F.convolution_nd(x, W, b, stride=2, pad=1)
    F.sum(y).backward()
    assert x.grad.shape == x.shape and W.grad.shape == W.shape
    assert b.grad.shape == b.shape


def test_bad_inputs():
    x = numpy.zeros((2, 3, 5, 5, 5), numpy.float32)
    with pytest.raises(type_check.InvalidType, match='(?s)ConvolutionND.*'
                       r'x.shape\[1\] == W.shape\[1\]'):
        F.convolution_nd(x, numpy.zeros((4, 2, 3, 3, 3), numpy.float32))
    with pytest.raises(type_check.InvalidType,
                       match='(?s)ConvolutionND.*W.ndim == 5'):
        F.convolution_nd(x, numpy.zeros((4, 3, 3, 3), numpy.float32))
    with pytest.raises(type_check.InvalidType,
                       match='(?s)ConvolutionND.*x.ndim == 3'):
        F.convolution_nd(numpy.zeros((2, 3), numpy.float32),
                         numpy.zeros((4, 3, 3), numpy.float32))
    with pytest.raises(type_check.InvalidType,
                       match="(?s)ConvolutionND.*W.dtype.kind == 'f'"):
        F.convolution_nd(x, numpy.zeros((4, 3, 3, 3, 3), numpy.int32))
    with pytest.raises(ValueError, match='convolution_nd: stride'):
        F.convolution_nd(x, numpy.zeros((4, 3, 3, 3, 3), numpy.float32),
                         stride=(1, 2))
