import itertools

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


def _naive(x, W, b, stride):
    sy, sx = stride if isinstance(stride, tuple) else (stride, stride)
    c_o, oh, ow, c, kh, kw = W.shape
    n = x.shape[0]
    y = numpy.zeros((n, c_o, oh, ow))
    for m, o, i, j in itertools.product(range(n), range(c_o), range(oh),
                                        range(ow)):
        patch = x[m, :, i * sy:i * sy + kh, j * sx:j * sx + kw]
        y[m, o, i, j] = (patch * W[o, i, j]).sum()
        if b is not None:
            y[m, o, i, j] += b[o, i, j]
    return y


CASES = [
    # x shape, c_o, ksize, stride
    ((2, 3, 4, 4), 2, (2, 2), 1),
    ((1, 2, 5, 6), 3, (3, 2), 2),
    ((2, 1, 5, 4), 2, (2, 3), (1, 2)),
]


def _outsize(x_shape, ksize, stride):
    sy, sx = stride if isinstance(stride, tuple) else (stride, stride)
    return ((x_shape[2] - ksize[0]) // sy + 1,
            (x_shape[3] - ksize[1]) // sx + 1)


def _inputs(x_shape, c_o, ksize, stride, dtype, seed):
    rng = numpy.random.RandomState(seed)
    oh, ow = _outsize(x_shape, ksize, stride)
    x = rng.uniform(-1, 1, x_shape).astype(dtype)
    W = rng.uniform(-1, 1, (c_o, oh, ow, x_shape[1]) + ksize).astype(dtype)
    b = rng.uniform(-1, 1, (c_o, oh, ow)).astype(dtype)
    return x, W, b


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('x_shape,c_o,ksize,stride', CASES)
@pytest.mark.parametrize('nobias', [False, True])
def test_forward(dtype, x_shape, c_o, ksize, stride, nobias):
    x, W, b = _inputs(x_shape, c_o, ksize, stride, dtype, 0)
    if nobias:
        b = None
    y = F.local_convolution_2d(x, W, b, stride=stride)
    expected = _naive(x, W, b, stride)
    assert y.dtype == dtype and y.shape == expected.shape
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize('x_shape,c_o,ksize,stride', CASES)
@pytest.mark.parametrize('nobias', [False, True])
def test_backward(x_shape, c_o, ksize, stride, nobias):
    x, W, b = _inputs(x_shape, c_o, ksize, stride, numpy.float64, 1)
    rng = numpy.random.RandomState(2)
    args = (x, W) if nobias else (x, W, b)

    def f(*args):
        return F.local_convolution_2d(*args, stride=stride)
    gy = rng.uniform(-1, 1, _naive(x, W, None, stride).shape)
    gradient_check.check_backward(f, args, gy)
    ggs = tuple(rng.uniform(-1, 1, a.shape) for a in args)
    gradient_check.check_double_backward(f, args, gy, ggs)


def test_weight_gradient_by_hand():
    x, W, b = _inputs((2, 2, 3, 3), 1, (2, 2), 1, numpy.float64, 3)
    Wv = cpuframe.Variable(W)
    F.sum(F.local_convolution_2d(x, Wv, b)).backward()
    # dy[n, 0, i, j] / dW[0, i, j] is the patch at (i, j), summed over n.
    for i, j in itertools.product(range(2), range(2)):
        numpy.testing.assert_allclose(
            Wv.grad[0, i, j], x[:, :, i:i + 2, j:j + 2].sum(axis=0))


def test_bad_inputs():
    x, W, b = _inputs((2, 3, 4, 4), 2, (2, 2), 1, numpy.float32, 0)
    with pytest.raises(type_check.InvalidType, match='LocalConvolution2D'):
        F.local_convolution_2d(x[:, :2], W, b)
    with pytest.raises(type_check.InvalidType, match='output size'):
        F.local_convolution_2d(x, W, b, stride=2)
    with pytest.raises(type_check.InvalidType, match='b.shape'):
        F.local_convolution_2d(x, W, b[:, :2])
    with pytest.raises(type_check.InvalidType, match='LocalConvolution2D'):
        F.local_convolution_2d(x, W[0], b)
    with pytest.raises(type_check.InvalidType, match='LocalConvolution2D'):
        F.local_convolution_2d(x, W.astype(numpy.float64), b)
    with pytest.raises(ValueError, match='local_convolution_2d'):
        F.local_convolution_2d(x, W, b, stride=0)
