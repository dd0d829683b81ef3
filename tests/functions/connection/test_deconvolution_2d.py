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
from cpuframe.utils.conv import get_deconv_outsize

# outsize: None, the cover_all size, or the largest valid size
OPTIONS = list(itertools.product([1, 2], [0, 1], [1, 2], [1, 2],
                                 [None, 'cover_all', 'largest']))
IN_SIZE, KSIZE = (3, 4), (3, 2)


def _outsize(kind, stride, pad, dilate):
    if kind is None:
        return None
    return tuple(
        get_deconv_outsize(h, k, stride, pad, cover_all=True, d=dilate)
        if kind == 'cover_all' else
        get_deconv_outsize(h, k, stride, pad, d=dilate) + stride - 1
        for h, k in zip(IN_SIZE, KSIZE))


def _inputs(rng, groups, nobias, dtype, c=4, o=4):
    x = rng.uniform(-1, 1, (2, c) + IN_SIZE).astype(dtype)
    W = rng.uniform(-1, 1, (c, o // groups) + KSIZE).astype(dtype)
    b = None if nobias else rng.uniform(-1, 1, (o,)).astype(dtype)
    return x, W, b


def _deconv(stride, pad, dilate, groups, outsize):
    def f(x, W, b=None):
        return F.deconvolution_2d(x, W, b, stride, pad, outsize,
                                  dilate=dilate, groups=groups)
    return f


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('nobias', [False, True])
@pytest.mark.parametrize('stride,pad,dilate,groups,outsize', OPTIONS)
def test_forward(naive_deconv, stride, pad, dilate, groups, outsize, nobias,
                 dtype):
    x, W, b = _inputs(numpy.random.RandomState(0), groups, nobias, dtype)
    outsize = _outsize(outsize, stride, pad, dilate)
    y = _deconv(stride, pad, dilate, groups, outsize)(
        cpuframe.Variable(x), cpuframe.Variable(W), b)
    expected = naive_deconv(x, W, b, stride, pad, dilate, groups, outsize)
    assert y.dtype == dtype and y.shape == expected.shape
    if outsize is not None:
        assert y.shape[2:] == outsize
    assert y.array.flags.c_contiguous
    tol = 1e-5 if dtype == numpy.float32 else 1e-12
    numpy.testing.assert_allclose(y.array, expected, rtol=tol, atol=tol)


@pytest.mark.parametrize('nobias', [False, True])
@pytest.mark.parametrize('stride,pad,dilate,groups,outsize', OPTIONS)
def test_backward(stride, pad, dilate, groups, outsize, nobias):
    rng = numpy.random.RandomState(1)
    x, W, b = _inputs(rng, groups, nobias, numpy.float64)
    f = _deconv(stride, pad, dilate, groups,
                _outsize(outsize, stride, pad, dilate))
    gy = rng.uniform(-1, 1, f(x, W, b).shape)
    args = (x, W) if b is None else (x, W, b)
    gradient_check.check_backward(f, args, gy)


@pytest.mark.parametrize('stride,pad,dilate,groups,outsize', [
    (1, 0, 1, 1, None), (2, 1, 2, 2, 'cover_all'), (2, 1, 1, 1, 'largest')])
def test_double_backward(stride, pad, dilate, groups, outsize):
    rng = numpy.random.RandomState(2)
    x, W, b = _inputs(rng, groups, False, numpy.float64)
    f = _deconv(stride, pad, dilate, groups,
                _outsize(outsize, stride, pad, dilate))
    gy = rng.uniform(-1, 1, f(x, W, b).shape)
    ggs = tuple(rng.uniform(-1, 1, a.shape) for a in (x, W, b))
    gradient_check.check_double_backward(f, (x, W, b), gy, ggs)


@pytest.mark.parametrize('stride,pad,dilate,groups,cover_all',
                         list(itertools.product([1, 2], [0, 1], [1, 2], [1, 2],
                                                [False, True])))
def test_adjoint_of_convolution(stride, pad, dilate, groups, cover_all):
    # <conv(x, W), y> == <x, deconv(y, W)> with outsize = x's size
    rng = numpy.random.RandomState(3)
    x = rng.uniform(-1, 1, (2, 4, 6, 5))
    W = rng.uniform(-1, 1, (6, 4 // groups, 3, 2))
    cx = F.convolution_2d(x, W, stride=stride, pad=pad, cover_all=cover_all,
                          dilate=dilate, groups=groups).array
    y = rng.uniform(-1, 1, cx.shape)
    dy = F.deconvolution_2d(y, W, stride=stride, pad=pad, outsize=(6, 5),
                            dilate=dilate, groups=groups).array
    numpy.testing.assert_allclose((cx * y).sum(), (x * dy).sum(), rtol=1e-12)


def test_mixed_cover_all_per_axis():
    # axis 0 needs the plain size, axis 1 the cover_all size; both invert
    rng = numpy.random.RandomState(4)
    x = rng.uniform(-1, 1, (1, 2, 3, 3))
    W = rng.uniform(-1, 1, (2, 3, 3, 3))
    plain = get_deconv_outsize(3, 3, 2, 0)
    cover = get_deconv_outsize(3, 3, 2, 0, cover_all=True)
    assert plain != cover
    f = _deconv(2, 0, 1, 1, (plain, cover))
    y = f(x, W)
    assert y.shape == (1, 3, plain, cover)
    gradient_check.check_backward(f, (x, W), rng.uniform(-1, 1, y.shape))


def _bad(match, x_shape, w_shape, b_shape=None, dtype=numpy.float32,
         **kwargs):
    x = numpy.zeros(x_shape, dtype)
    W = numpy.zeros(w_shape, numpy.float32)
    b = None if b_shape is None else numpy.zeros(b_shape, numpy.float32)
    with pytest.raises(type_check.InvalidType,
                       match='(?s)Deconvolution2DFunction.*' + match):
        F.deconvolution_2d(x, W, b, **kwargs)


def test_bad_outsize():
    # valid sizes for x of size 3, k 3, s 2: 6 (cover_all), 7 (plain), 8
    y = F.deconvolution_2d(numpy.zeros((1, 1, 3, 3), numpy.float32),
                           numpy.zeros((1, 1, 3, 3), numpy.float32),
                           stride=2, outsize=(6, 8))
    assert y.shape == (1, 1, 6, 8)
    _bad(r'x.shape\[2\] <= 2', (1, 1, 3, 3), (1, 1, 3, 3), stride=2,
         outsize=(5, 7))
    _bad(r'x.shape\[3\] >= 4', (1, 1, 3, 3), (1, 1, 3, 3), stride=2,
         outsize=(7, 9))
    with pytest.raises(ValueError, match='deconvolution_2d: outsize'):
        F.deconvolution_2d(numpy.zeros((1, 1, 3, 3), numpy.float32),
                           numpy.zeros((1, 1, 3, 3), numpy.float32),
                           outsize=(5, 5, 5))


def test_channel_mismatch():
    _bad(r'x.shape\[1\] == W.shape\[0\]', (2, 3, 4, 4), (2, 3, 3, 3))


def test_wrong_ndim():
    _bad('x.ndim == 4', (2, 3, 4), (3, 2, 3, 3))


def test_non_float_input():
    _bad("x.dtype.kind == 'f'", (2, 3, 4, 4), (3, 2, 3, 3),
         dtype=numpy.int64)


def test_groups_not_dividing_channels():
    _bad(r'W.shape\[0\] % groups == 0', (2, 3, 4, 4), (3, 2, 3, 3),
         groups=2)


def test_bias_mismatch():
    _bad(r'b.shape\[0\] == W.shape\[1\] \* 2', (2, 4, 4, 4), (4, 2, 3, 3),
         (2,), groups=2)


def test_output_too_small():
    _bad('positive output size', (1, 1, 1, 1), (1, 1, 1, 1), pad=1)
