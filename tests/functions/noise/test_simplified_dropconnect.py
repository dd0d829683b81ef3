import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


def _naive(x, W, b, mask, ratio):
    n = x.shape[0]
    x2 = x.reshape(n, -1).astype(numpy.float64)
    scale = 1.0 / (1.0 - ratio)
    y = numpy.zeros((n, W.shape[0]))
    for i in range(n):
        m = mask[i] if mask.ndim == 3 else mask
        for j in range(W.shape[0]):
            y[i, j] = sum(W[j, k] * scale * m[j, k] * x2[i, k]
                          for k in range(W.shape[1]))
            if b is not None:
                y[i, j] += b[j]
    return y


def _inputs(x_shape, out, dtype, seed):
    rng = numpy.random.RandomState(seed)
    x = rng.uniform(-1, 1, x_shape).astype(dtype)
    in_size = int(numpy.prod(x_shape[1:]))
    W = rng.uniform(-1, 1, (out, in_size)).astype(dtype)
    b = rng.uniform(-1, 1, out).astype(dtype)
    return x, W, b


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('x_shape', [(4, 3), (3, 2, 2)])
@pytest.mark.parametrize('batchwise', [True, False])
@pytest.mark.parametrize('nobias', [False, True])
@pytest.mark.parametrize('ratio', [0.0, 0.4])
def test_forward_drawn_mask(dtype, x_shape, batchwise, nobias, ratio):
    x, W, b = _inputs(x_shape, 5, dtype, 0)
    if nobias:
        b = None
    numpy.random.seed(3)
    y = F.simplified_dropconnect(x, W, b, ratio=ratio,
                                 use_batchwise_mask=batchwise)
    numpy.random.seed(3)
    shape = ((x.shape[0],) + W.shape) if batchwise else W.shape
    mask = numpy.random.random_sample(shape) >= ratio
    assert y.dtype == dtype and y.shape == (x.shape[0], 5)
    numpy.testing.assert_allclose(y.array, _naive(x, W, b, mask, ratio),
                                  rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize('mask_shape', [(4, 5, 3), (5, 3)])
def test_given_mask_and_test_mode(mask_shape):
    x, W, b = _inputs((4, 3), 5, numpy.float64, 1)
    mask = numpy.random.RandomState(2).uniform(size=mask_shape) < 0.5
    y = F.simplified_dropconnect(x, W, b, ratio=0.25, mask=mask,
                                 use_batchwise_mask=len(mask_shape) == 2)
    numpy.testing.assert_allclose(y.array, _naive(x, W, b, mask, 0.25))
    # train=False: ratio 0, no drop, a plain linear function.
    y = F.simplified_dropconnect(x, W, b, ratio=0.25, train=False)
    numpy.testing.assert_allclose(y.array, x.dot(W.T) + b)


@pytest.mark.parametrize('mask_shape', [(3, 4, 6), (4, 6)])
@pytest.mark.parametrize('nobias', [False, True])
def test_backward(mask_shape, nobias):
    x, W, b = _inputs((3, 2, 3), 4, numpy.float64, 4)
    mask = numpy.random.RandomState(5).uniform(size=mask_shape) < 0.6
    args = (x, W) if nobias else (x, W, b)

    def f(*args):
        return F.simplified_dropconnect(*args, ratio=0.3, mask=mask)
    rng = numpy.random.RandomState(6)
    gy = rng.uniform(-1, 1, (3, 4))
    gradient_check.check_backward(f, args, gy)
    gradient_check.check_double_backward(
        f, args, gy, tuple(rng.uniform(-1, 1, a.shape) for a in args))


def test_bad_inputs():
    x, W, b = _inputs((4, 3), 5, numpy.float32, 0)
    with pytest.raises(type_check.InvalidType, match='SimplifiedDropconnect'):
        F.simplified_dropconnect(x, W[:, :2], b)
    with pytest.raises(type_check.InvalidType, match='SimplifiedDropconnect'):
        F.simplified_dropconnect(x, W, b[:3])
    with pytest.raises(type_check.InvalidType, match='SimplifiedDropconnect'):
        F.simplified_dropconnect(x[0], W, b)
    with pytest.raises(type_check.InvalidType, match='mask.shape'):
        F.simplified_dropconnect(x, W, b, mask=numpy.ones((5, 5), bool))
    with pytest.raises(ValueError, match='simplified_dropconnect'):
        F.simplified_dropconnect(x, W, b, ratio=1.0)
    with pytest.raises(TypeError, match='simplified_dropconnect'):
        F.simplified_dropconnect(x, W, b, mask=[[1]])
    assert isinstance(F.simplified_dropconnect(cpuframe.Variable(x), W),
                      cpuframe.Variable)
