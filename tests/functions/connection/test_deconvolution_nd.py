"""The intel64 parity tests of this op:
tests/backends/intel64/test_convolution.py and test_edge_values.py.
"""
import itertools

import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check
from cpuframe.utils.conv import get_deconv_outsize

SHAPES = {1: ((5,), (3,)), 3: ((3, 2, 3), (2, 3, 2))}
OPTIONS = list(itertools.product([1, 2], [0, 1], [1, 2], [1, 2],
                                 [False, True]))


def _inputs(rng, nd, groups, dtype, c=4, o=4):
    size, k = SHAPES[nd]
    x = rng.uniform(-1, 1, (2, c) + size).astype(dtype)
    W = rng.uniform(-1, 1, (c, o // groups) + k).astype(dtype)
    b = rng.uniform(-1, 1, (o,)).astype(dtype)
    return x, W, b


def _outsize(nd, stride, pad, dilate, cover_all):
    size, k = SHAPES[nd]
    return tuple(get_deconv_outsize(h, kk, stride, pad, cover_all, dilate)
                 for h, kk in zip(size, k))


@pytest.mark.parametrize('nd', [1, 3])
@pytest.mark.parametrize('stride,pad,dilate,groups,cover_all', OPTIONS)
def test_forward(naive_deconv, nd, stride, pad, dilate, groups, cover_all):
    x, W, b = _inputs(numpy.random.RandomState(0), nd, groups, numpy.float32)
    outsize = _outsize(nd, stride, pad, dilate, cover_all)
    y = F.deconvolution_nd(x, W, b, stride, pad, outsize, dilate, groups)
    expected = naive_deconv(x, W, b, stride, pad, dilate, groups, outsize)
    assert y.dtype == numpy.float32 and y.shape == expected.shape
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize('nd', [1, 3])
@pytest.mark.parametrize('stride,pad,dilate,groups,cover_all', OPTIONS)
def test_backward(nd, stride, pad, dilate, groups, cover_all):
    rng = numpy.random.RandomState(1)
    x, W, b = _inputs(rng, nd, groups, numpy.float64)
    outsize = _outsize(nd, stride, pad, dilate, cover_all)

    def f(x, W, b):
        return F.deconvolution_nd(x, W, b, stride, pad, outsize, dilate,
                                  groups)

    gy = rng.uniform(-1, 1, f(x, W, b).shape)
    gradient_check.check_backward(f, (x, W, b), gy)


@pytest.mark.parametrize('nd', [1, 3])
def test_double_backward(nd):
    rng = numpy.random.RandomState(2)
    x, W, b = _inputs(rng, nd, 2, numpy.float64)

    def f(x, W, b):
        return F.deconvolution_nd(x, W, b, stride=2, pad=1, groups=2)

    gy = rng.uniform(-1, 1, f(x, W, b).shape)
    ggs = tuple(rng.uniform(-1, 1, a.shape) for a in (x, W, b))
    gradient_check.check_double_backward(f, (x, W, b), gy, ggs)


@pytest.mark.parametrize('func,nd', [(F.deconvolution_1d, 1),
                                     (F.deconvolution_3d, 3)])
def test_fixed_dimension_wrappers(naive_deconv, func, nd):
    x, W, b = _inputs(numpy.random.RandomState(3), nd, 1, numpy.float64)
    numpy.testing.assert_allclose(func(x, W, b, stride=2).array,
                                  naive_deconv(x, W, b, stride=2))
    with pytest.raises(ValueError, match=func.__name__):
        func(numpy.zeros((2, 4, 5, 5)), W)


def test_bad_inputs():
    x = numpy.zeros((2, 4, 3, 3, 3), numpy.float32)
    with pytest.raises(type_check.InvalidType, match='(?s)DeconvolutionND.*'
                       r'x.shape\[1\] == W.shape\[0\]'):
        F.deconvolution_nd(x, numpy.zeros((3, 2, 2, 2, 2), numpy.float32))
    with pytest.raises(type_check.InvalidType,
                       match='(?s)DeconvolutionND.*W.ndim == 5'):
        F.deconvolution_nd(x, numpy.zeros((4, 2, 2, 2), numpy.float32))
    with pytest.raises(type_check.InvalidType,
                       match=r'(?s)DeconvolutionND.*x.shape\[4\] >= '):
        F.deconvolution_nd(x, numpy.zeros((4, 2, 2, 2, 2), numpy.float32),
                           stride=2, outsize=(6, 6, 9))
