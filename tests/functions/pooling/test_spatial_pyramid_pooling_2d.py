import math

import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check


def _naive(x, height):
    """Level l: max over a 2**l by 2**l grid of (padded) bins, flattened."""
    n, c, h, w = x.shape
    out = []
    for level in range(height):
        bins = 2 ** level
        kh, kw = math.ceil(h / bins), math.ceil(w / bins)
        ph, pw = (kh * bins - h) // 2, (kw * bins - w) // 2
        y = numpy.full((n, c, bins, bins), -numpy.inf)
        for i in range(bins):
            for j in range(bins):
                r0, q0 = max(i * kh - ph, 0), max(j * kw - pw, 0)
                r1, q1 = min(i * kh - ph + kh, h), min(j * kw - pw + kw, w)
                if r1 > r0 and q1 > q0:
                    y[:, :, i, j] = x[:, :, r0:r1, q0:q1].max(axis=(2, 3))
        out.append(y.reshape(n, -1))
    return numpy.concatenate(out, axis=1)[:, :, None, None]


@pytest.mark.parametrize('shape', [(2, 3, 8, 8), (1, 2, 5, 7), (1, 1, 9, 6)])
@pytest.mark.parametrize('height', [1, 2, 3])
def test_forward(shape, height):
    x = numpy.random.RandomState(0).normal(size=shape).astype(numpy.float32)
    y = F.spatial_pyramid_pooling_2d(x, height)
    assert y.shape == (shape[0], shape[1] * sum(4 ** i for i in range(height)),
                       1, 1)
    numpy.testing.assert_array_equal(y.array, _naive(x, height))


def test_backward():
    shape = (1, 2, 5, 6)
    rng = numpy.random.RandomState(1)
    x = rng.permutation(60).reshape(shape) * 0.1
    gy = rng.uniform(-1, 1, (1, 2 * 5, 1, 1))
    gradient_check.check_backward(
        lambda x: F.spatial_pyramid_pooling_2d(x, 2), x, gy)


def test_explicit_max_pooling():
    x = numpy.ones((1, 1, 4, 4), numpy.float32)
    assert F.spatial_pyramid_pooling_2d(x, 2, 'max').shape == (1, 5, 1, 1)


def test_bad_pooling():
    with pytest.raises(ValueError, match='spatial_pyramid_pooling_2d'):
        F.spatial_pyramid_pooling_2d(numpy.ones((1, 1, 4, 4)), 2, 'average')


def test_bad_shape():
    with pytest.raises(ValueError, match='spatial_pyramid_pooling_2d'):
        F.spatial_pyramid_pooling_2d(numpy.ones((1, 4, 4)), 2)
