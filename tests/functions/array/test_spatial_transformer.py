import math

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


def _naive_grid(theta, shape):
    h, w = shape
    out = numpy.zeros((theta.shape[0], 2, h, w))
    for b in range(theta.shape[0]):
        for i in range(h):
            for j in range(w):
                yt = -1 + 2 * i / (h - 1) if h > 1 else -1.0
                xt = -1 + 2 * j / (w - 1) if w > 1 else -1.0
                out[b, :, i, j] = theta[b].dot([xt, yt, 1.0])
    return out


def _naive_sample(x, grid):
    n, c, h, w = x.shape
    oh, ow = grid.shape[2:]
    y = numpy.zeros((n, c, oh, ow))

    def pixel(b, r, q):
        if 0 <= r < h and 0 <= q < w:
            return x[b, :, r, q]
        return numpy.zeros(c)
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                u = (grid[b, 0, i, j] + 1) * (w - 1) / 2
                v = (grid[b, 1, i, j] + 1) * (h - 1) / 2
                u0, v0 = math.floor(u), math.floor(v)
                fu, fv = u - u0, v - v0
                y[b, :, i, j] = (
                    (1 - fu) * (1 - fv) * pixel(b, v0, u0) +
                    fu * (1 - fv) * pixel(b, v0, u0 + 1) +
                    (1 - fu) * fv * pixel(b, v0 + 1, u0) +
                    fu * fv * pixel(b, v0 + 1, u0 + 1))
    return y


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('shape', [(3, 4), (5, 2), (1, 3)])
def test_grid_forward(dtype, shape):
    theta = numpy.random.RandomState(0).uniform(-1, 1, (2, 2, 3)).astype(
        dtype)
    y = F.spatial_transformer_grid(theta, shape)
    assert y.dtype == dtype and y.shape == (2, 2) + shape
    numpy.testing.assert_allclose(y.array, _naive_grid(theta, shape),
                                  rtol=1e-5, atol=1e-6)


def test_grid_backward():
    rng = numpy.random.RandomState(1)
    theta = rng.uniform(-1, 1, (2, 2, 3))

    def f(theta):
        return F.spatial_transformer_grid(theta, (3, 4))
    gy = rng.uniform(-1, 1, (2, 2, 3, 4))
    gradient_check.check_backward(f, (theta,), gy)
    gradient_check.check_double_backward(f, (theta,), gy,
                                         (rng.uniform(-1, 1, theta.shape),))


def _grid(shape, x_hw, seed, low=-1.3, high=1.3):
    """Random points away from pixel lines (the kinks of bilinear)."""
    rng = numpy.random.RandomState(seed)
    grid = rng.uniform(low, high, shape)
    h, w = x_hw
    for k, size in ((0, w), (1, h)):
        pix = (grid[:, k] + 1) * (size - 1) / 2
        frac = pix - numpy.floor(pix)
        pix = numpy.where(frac < 0.05, pix + 0.1, pix)
        pix = numpy.where(frac > 0.95, pix - 0.1, pix)
        grid[:, k] = pix * 2 / (size - 1) - 1
    return grid


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('x_shape,out', [((2, 3, 4, 5), (3, 3)),
                                         ((1, 1, 3, 3), (4, 2))])
def test_sampler_forward(dtype, x_shape, out):
    rng = numpy.random.RandomState(2)
    x = rng.uniform(-1, 1, x_shape).astype(dtype)
    grid = _grid((x_shape[0], 2) + out, x_shape[2:], 3).astype(dtype)
    y = F.spatial_transformer_sampler(x, grid)
    assert y.dtype == dtype and y.shape == x_shape[:2] + out
    numpy.testing.assert_allclose(y.array, _naive_sample(x, grid), rtol=1e-5,
                                  atol=1e-6)


def test_sampler_identity_and_outside():
    x = numpy.random.RandomState(4).uniform(-1, 1, (2, 3, 4, 5))
    theta = numpy.tile(numpy.array([[1., 0, 0], [0, 1, 0]]), (2, 1, 1))
    grid = F.spatial_transformer_grid(theta, (4, 5))
    numpy.testing.assert_allclose(
        F.spatial_transformer_sampler(x, grid).array, x, atol=1e-12)
    far = numpy.full((2, 2, 1, 3), 5.0)
    far[:, :, 0, 1] = -7.0
    assert (F.spatial_transformer_sampler(x, far).array == 0).all()


def test_sampler_backward():
    rng = numpy.random.RandomState(5)
    x = rng.uniform(-1, 1, (2, 2, 3, 4))
    grid = _grid((2, 2, 2, 3), (3, 4), 6)
    gy = rng.uniform(-1, 1, (2, 2, 2, 3))
    f = F.spatial_transformer_sampler
    gradient_check.check_backward(f, (x, grid), gy, eps=1e-4)
    gradient_check.check_double_backward(
        f, (x, grid), gy, (rng.uniform(-1, 1, x.shape),
                           rng.uniform(-1, 1, grid.shape)), eps=1e-4)


def test_transformer_end_to_end_gradient():
    rng = numpy.random.RandomState(7)
    x = rng.uniform(-1, 1, (1, 1, 5, 5))
    theta = numpy.array([[[0.7, 0.1, 0.05], [-0.1, 0.8, 0.02]]])

    def f(theta):
        return F.spatial_transformer_sampler(
            x, F.spatial_transformer_grid(theta, (3, 3)))
    gradient_check.check_backward(f, (theta,), rng.uniform(-1, 1, (1, 1, 3,
                                                                   3)),
                                  eps=1e-4)
    assert isinstance(f(cpuframe.Variable(theta)), cpuframe.Variable)


def test_bad_inputs():
    with pytest.raises(type_check.InvalidType, match='SpatialTransformerGrid'):
        F.spatial_transformer_grid(numpy.zeros((2, 3, 3)), (2, 2))
    with pytest.raises(type_check.InvalidType, match='SpatialTransformerGrid'):
        F.spatial_transformer_grid(numpy.zeros((2, 2, 3), numpy.int32), (2, 2))
    with pytest.raises(ValueError, match='output_shape'):
        F.spatial_transformer_grid(numpy.zeros((2, 2, 3)), (2, 0))
    x = numpy.zeros((2, 1, 3, 3))
    with pytest.raises(type_check.InvalidType, match='sampler'):
        F.spatial_transformer_sampler(x, numpy.zeros((2, 3, 2, 2)))
    with pytest.raises(type_check.InvalidType, match='sampler'):
        F.spatial_transformer_sampler(x, numpy.zeros((1, 2, 2, 2)))
    with pytest.raises(type_check.InvalidType, match='sampler'):
        F.spatial_transformer_sampler(x, numpy.zeros((2, 2, 2, 2),
                                                     numpy.float32))
    with pytest.raises(TypeError, match='unexpected'):
        F.spatial_transformer_sampler(x, numpy.zeros((2, 2, 2, 2)), use_cudnn=1)
