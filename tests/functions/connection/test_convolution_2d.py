"""The intel64 parity tests of this op:
tests/backends/intel64/test_convolution.py, test_conv_relu_fusion.py and
test_edge_values.py.
"""
import itertools

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.functions.connection.convolution_2d import Convolution2DFunction
from cpuframe.utils import type_check

OPTIONS = list(itertools.product([1, 2], [0, 1], [1, 2], [1, 2],
                                 [False, True]))
OPTION_IDS = ['s{}-p{}-d{}-g{}-{}'.format(s, p, d, g, 'cover' if c else 'nocover')
              for s, p, d, g, c in OPTIONS]


def _inputs(rng, groups, nobias, dtype, size=(5, 6), c=4, o=4, k=(3, 2)):
    x = rng.uniform(-1, 1, (2, c) + size).astype(dtype)
    W = rng.uniform(-1, 1, (o, c // groups) + k).astype(dtype)
    b = None if nobias else rng.uniform(-1, 1, (o,)).astype(dtype)
    return x, W, b


def _conv(stride, pad, dilate, groups, cover_all):
    def f(x, W, b=None):
        return F.convolution_2d(x, W, b, stride, pad, cover_all,
                                dilate=dilate, groups=groups)
    return f


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('nobias', [False, True])
@pytest.mark.parametrize('stride,pad,dilate,groups,cover_all', OPTIONS,
                         ids=OPTION_IDS)
def test_forward(naive_conv, stride, pad, dilate, groups, cover_all, nobias,
                 dtype):
    x, W, b = _inputs(numpy.random.RandomState(0), groups, nobias, dtype)
    y = _conv(stride, pad, dilate, groups, cover_all)(
        cpuframe.Variable(x), cpuframe.Variable(W),
        None if b is None else cpuframe.Variable(b))
    expected = naive_conv(x, W, b, stride, pad, dilate, groups, cover_all)
    assert isinstance(y.array, numpy.ndarray)
    assert y.dtype == dtype and y.shape == expected.shape
    assert y.array.flags.c_contiguous
    tol = 1e-5 if dtype == numpy.float32 else 1e-12
    numpy.testing.assert_allclose(y.array, expected, rtol=tol, atol=tol)


@pytest.mark.parametrize('nobias', [False, True])
@pytest.mark.parametrize('stride,pad,dilate,groups,cover_all', OPTIONS,
                         ids=OPTION_IDS)
def test_backward(stride, pad, dilate, groups, cover_all, nobias):
    rng = numpy.random.RandomState(1)
    x, W, b = _inputs(rng, groups, nobias, numpy.float64)
    f = _conv(stride, pad, dilate, groups, cover_all)
    y = f(x, W, b)
    gy = rng.uniform(-1, 1, y.shape)
    args = (x, W) if b is None else (x, W, b)
    gradient_check.check_backward(f, args, gy)


def test_backward_float32():
    rng = numpy.random.RandomState(2)
    x, W, b = _inputs(rng, 2, False, numpy.float32)
    f = _conv(2, 1, 1, 2, True)
    gy = rng.uniform(-1, 1, f(x, W, b).shape).astype(numpy.float32)
    gradient_check.check_backward(f, (x, W, b), gy, dtype=numpy.float64,
                                  atol=1e-3, rtol=1e-3)


@pytest.mark.parametrize('stride,pad,dilate,groups,cover_all', [
    (1, 1, 1, 1, False), (2, 1, 2, 2, True), (2, 0, 1, 1, True)])
@pytest.mark.parametrize('nobias', [False, True])
def test_double_backward(stride, pad, dilate, groups, cover_all, nobias):
    rng = numpy.random.RandomState(3)
    x, W, b = _inputs(rng, groups, nobias, numpy.float64)
    f = _conv(stride, pad, dilate, groups, cover_all)
    gy = rng.uniform(-1, 1, f(x, W, b).shape)
    args = (x, W) if b is None else (x, W, b)
    ggs = tuple(rng.uniform(-1, 1, a.shape) for a in args)
    gradient_check.check_double_backward(f, args, gy, ggs)


def test_third_order():
    # gradients of gradients of gradients are still convolutions
    rng = numpy.random.RandomState(4)
    x, W, _ = _inputs(rng, 2, True, numpy.float64)
    f = _conv(2, 1, 1, 2, True)
    gy = rng.uniform(-1, 1, f(x, W).shape)
    ggx, ggW = rng.uniform(-1, 1, x.shape), rng.uniform(-1, 1, W.shape)

    def first(x, W, gy):
        gx, gW = cpuframe.grad([F.sum(f(x, W) * gy)], [x, W],
                               enable_double_backprop=True)
        return gx, gW

    gradient_check.check_double_backward(
        first, (x, W, gy), (ggx, ggW),
        (rng.uniform(-1, 1, x.shape), rng.uniform(-1, 1, W.shape),
         rng.uniform(-1, 1, gy.shape)))


def test_per_axis_options(naive_conv):
    rng = numpy.random.RandomState(5)
    x, W, b = _inputs(rng, 1, False, numpy.float64, size=(7, 6))
    f = _conv((2, 1), (1, 0), (1, 2), 1, False)
    y = f(x, W, b)
    numpy.testing.assert_allclose(
        y.array, naive_conv(x, W, b, (2, 1), (1, 0), (1, 2), 1, False))
    gradient_check.check_backward(f, (x, W, b),
                                  rng.uniform(-1, 1, y.shape))


def test_cover_all_output_size():
    x = numpy.zeros((1, 1, 6, 6), numpy.float32)
    W = numpy.zeros((1, 1, 3, 3), numpy.float32)
    assert F.convolution_2d(x, W, stride=2).shape == (1, 1, 2, 2)
    assert F.convolution_2d(x, W, stride=2, cover_all=True).shape == \
        (1, 1, 3, 3)


def test_non_contiguous_input(naive_conv):
    rng = numpy.random.RandomState(6)
    x = rng.uniform(-1, 1, (2, 5, 6, 4)).transpose(0, 3, 2, 1)
    W = rng.uniform(-1, 1, (3, 4, 2, 2))
    y = F.convolution_2d(x, W, pad=1)
    numpy.testing.assert_allclose(y.array, naive_conv(x, W, pad=1))


def test_mixed_dtypes():
    # as in Chainer, the output has x's dtype and gW has W's dtype
    rng = numpy.random.RandomState(7)
    x = cpuframe.Variable(rng.uniform(-1, 1, (2, 2, 4, 4)).astype(numpy.float32))
    W = cpuframe.Variable(rng.uniform(-1, 1, (3, 2, 3, 3)))
    y = F.convolution_2d(x, W)
    assert y.dtype == numpy.float32
    F.sum(y).backward()
    assert x.grad.dtype == numpy.float32 and W.grad.dtype == numpy.float64


def test_1x1_kernel(naive_conv):
    rng = numpy.random.RandomState(8)
    x, W, b = _inputs(rng, 2, False, numpy.float64, k=(1, 1))
    numpy.testing.assert_allclose(
        F.convolution_2d(x, W, b, groups=2).array,
        naive_conv(x, W, b, groups=2))


def test_keyword_only_options():
    x = numpy.zeros((1, 2, 4, 4), numpy.float32)
    W = numpy.zeros((2, 2, 2, 2), numpy.float32)
    with pytest.raises(TypeError):
        F.convolution_2d(x, W, None, 1, 0, False, 2)
    assert isinstance(Convolution2DFunction(dilate=2).label, str)


def _bad(match, x_shape, w_shape, b_shape=None, dtype=numpy.float32,
         **kwargs):
    x = numpy.zeros(x_shape, dtype)
    W = numpy.zeros(w_shape, numpy.float32)
    b = None if b_shape is None else numpy.zeros(b_shape, numpy.float32)
    with pytest.raises(type_check.InvalidType,
                       match='(?s)Convolution2DFunction.*' + match):
        F.convolution_2d(x, W, b, **kwargs)


def test_channel_mismatch():
    _bad(r'x.shape\[1\] == W.shape\[1\] \* 1', (2, 3, 5, 5), (4, 2, 3, 3))


def test_wrong_ndim():
    _bad('x.ndim == 4', (2, 3, 5), (4, 3, 3, 3))
    _bad('W.ndim == 4', (2, 3, 5, 5), (4, 3, 3))


def test_non_float_input():
    _bad("x.dtype.kind == 'f'", (2, 3, 5, 5), (4, 3, 3, 3), dtype=numpy.int32)


def test_groups_not_dividing_channels():
    _bad(r'x.shape\[1\] == W.shape\[1\] \* 2', (2, 3, 5, 5), (4, 1, 3, 3),
         groups=2)
    _bad(r'W.shape\[0\] % groups == 0', (2, 4, 5, 5), (3, 2, 3, 3),
         groups=2)


def test_bias_mismatch():
    _bad(r'b.shape\[0\] == W.shape\[0\]', (2, 3, 5, 5), (4, 3, 3, 3), (3,))


def test_output_too_small():
    _bad('positive output size', (2, 3, 2, 2), (4, 3, 3, 3))


@pytest.mark.parametrize('kwargs', [{'stride': (1, 2, 3)}, {'stride': 0},
                                    {'pad': -1}, {'dilate': 0},
                                    {'groups': 0}, {'groups': 1.5}])
def test_bad_options(kwargs):
    x = numpy.zeros((1, 2, 4, 4), numpy.float32)
    W = numpy.zeros((2, 2, 2, 2), numpy.float32)
    with pytest.raises(ValueError, match='convolution_2d'):
        F.convolution_2d(x, W, **kwargs)
