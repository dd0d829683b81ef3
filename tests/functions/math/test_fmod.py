import math

import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


def _inputs(rng, shape, dtype):
    x = numpy.asarray(rng.uniform(-5, 5, shape)).astype(dtype)
    d = numpy.asarray(rng.uniform(0.7, 2, shape)).astype(dtype)
    d *= numpy.where(rng.uniform(-1, 1, shape) < 0, -1, 1).astype(dtype)
    # Keep x / d away from integers (the jumps of fmod).
    q = x / d
    frac = numpy.abs(q - numpy.trunc(q))
    x = numpy.where((frac < 0.1) | (frac > 0.9), x + 0.3 * d, x)
    return numpy.asarray(x, dtype), numpy.asarray(d, dtype)


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('shape', [(3, 4), ()])
def test_forward_backward(dtype, shape):
    rng = numpy.random.RandomState(1)
    x, d = _inputs(rng, shape, dtype)
    y = F.fmod(x, d)
    expected = numpy.array([math.fmod(float(a), float(b))
                            for a, b in zip(x.ravel(), d.ravel())])
    assert y.dtype == dtype and y.shape == shape
    numpy.testing.assert_allclose(y.array.ravel(), expected, rtol=1e-5,
                                  atol=1e-5)
    x64, d64 = x.astype(numpy.float64), d.astype(numpy.float64)
    gy = numpy.asarray(rng.uniform(-1, 1, shape))
    gradient_check.check_backward(F.fmod, (x64, d64), gy, eps=1e-4)
    gradient_check.check_double_backward(
        F.fmod, (x64, d64), gy,
        (numpy.asarray(rng.uniform(-1, 1, shape)),
         numpy.asarray(rng.uniform(-1, 1, shape))), eps=1e-4)


def test_sign_follows_x():
    y = F.fmod(numpy.array([-7., 7., -7., 7.]), numpy.array([3., 3., -3., -3.]))
    numpy.testing.assert_array_equal(y.array, [-1., 1., -1., 1.])


def test_bad_inputs():
    with pytest.raises(type_check.InvalidType, match='fmod'):
        F.fmod(numpy.zeros((2, 3)), numpy.ones((3, 2)))
    with pytest.raises(type_check.InvalidType, match='fmod'):
        F.fmod(numpy.zeros(3), numpy.ones(3, numpy.float32))
    with pytest.raises(type_check.InvalidType, match='fmod'):
        F.fmod(numpy.zeros(3, numpy.int32), numpy.ones(3, numpy.int32))
