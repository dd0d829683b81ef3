"""The intel64 parity tests of this op:
tests/backends/intel64/test_convolution.py.
"""
import itertools

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


def _naive(x, W, b, stride, pad):
    # every (channel, multiplier) pair is its own single-channel convolution
    n, c, h, w = x.shape
    m, _, kh, kw = W.shape
    sy, sx = (stride, stride) if isinstance(stride, int) else stride
    xp = numpy.pad(x.astype(numpy.float64),
                   ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (h + 2 * pad - kh) // sy + 1
    ow = (w + 2 * pad - kw) // sx + 1
    y = numpy.zeros((n, c * m, oh, ow))
    for ci, mi, i, j in itertools.product(range(c), range(m), range(oh),
                                          range(ow)):
        patch = xp[:, ci, i * sy:i * sy + kh, j * sx:j * sx + kw]
        y[:, ci * m + mi, i, j] = (patch * W[mi, ci]).sum(axis=(1, 2))
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y


def _inputs(rng, nobias, dtype, m=2, c=3):
    x = rng.uniform(-1, 1, (2, c, 5, 4)).astype(dtype)
    W = rng.uniform(-1, 1, (m, c, 3, 2)).astype(dtype)
    b = None if nobias else rng.uniform(-1, 1, (c * m,)).astype(dtype)
    return x, W, b


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('nobias', [False, True])
@pytest.mark.parametrize('stride,pad', list(itertools.product([1, 2, (2, 1)],
                                                              [0, 1])))
def test_forward(stride, pad, nobias, dtype):
    x, W, b = _inputs(numpy.random.RandomState(0), nobias, dtype)
    y = F.depthwise_convolution_2d(cpuframe.Variable(x), W, b, stride, pad)
    expected = _naive(x, W, b, stride, pad)
    assert y.dtype == dtype and y.shape == expected.shape
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize('nobias', [False, True])
@pytest.mark.parametrize('stride,pad', list(itertools.product([1, 2], [0, 1])))
def test_backward(stride, pad, nobias):
    rng = numpy.random.RandomState(1)
    x, W, b = _inputs(rng, nobias, numpy.float64)

    def f(*args):
        return F.depthwise_convolution_2d(*args, stride=stride, pad=pad)

    args = (x, W) if b is None else (x, W, b)
    gy = rng.uniform(-1, 1, f(*args).shape)
    gradient_check.check_backward(f, args, gy)


def test_double_backward():
    rng = numpy.random.RandomState(2)
    x, W, b = _inputs(rng, False, numpy.float64)

    def f(x, W, b):
        return F.depthwise_convolution_2d(x, W, b, stride=2, pad=1)

    gy = rng.uniform(-1, 1, f(x, W, b).shape)
    ggs = tuple(rng.uniform(-1, 1, a.shape) for a in (x, W, b))
    gradient_check.check_double_backward(f, (x, W, b), gy, ggs)


def test_bad_inputs():
    x = numpy.zeros((2, 3, 5, 5), numpy.float32)
    label = '(?s)DepthwiseConvolution2D.*'
    with pytest.raises(type_check.InvalidType,
                       match=label + r'x.shape\[1\] == W.shape\[1\]'):
        F.depthwise_convolution_2d(x, numpy.zeros((2, 4, 3, 3), numpy.float32))
    with pytest.raises(type_check.InvalidType, match=label + 'x.ndim == 4'):
        F.depthwise_convolution_2d(numpy.zeros((2, 3, 5), numpy.float32),
                                   numpy.zeros((2, 3, 3, 3), numpy.float32))
    with pytest.raises(type_check.InvalidType,
                       match=label + "x.dtype.kind == 'f'"):
        F.depthwise_convolution_2d(numpy.zeros((2, 3, 5, 5), numpy.int32),
                                   numpy.zeros((2, 3, 3, 3), numpy.float32))
    with pytest.raises(type_check.InvalidType,
                       match=label + r'b.shape\[0\] == W.shape\[0\]'):
        F.depthwise_convolution_2d(x, numpy.zeros((2, 3, 3, 3), numpy.float32),
                                   numpy.zeros((3,), numpy.float32))
