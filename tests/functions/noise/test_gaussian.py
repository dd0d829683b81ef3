import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

DTYPES = [numpy.float32, numpy.float64]


def _inputs(shape, dtype, seed=0):
    rng = numpy.random.RandomState(seed)
    return (rng.uniform(-1, 1, shape).astype(dtype),
            rng.uniform(-1, 1, shape).astype(dtype))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', [(3, 4), ()])
def test_forward_follows_numpy_random(dtype, shape):
    mean, ln_var = _inputs(shape, dtype)
    numpy.random.seed(5)
    y, eps = F.gaussian(mean, ln_var, return_eps=True)
    numpy.random.seed(5)
    expected_eps = numpy.random.standard_normal(shape)
    assert y.dtype == dtype and y.shape == shape and eps.dtype == dtype
    numpy.testing.assert_allclose(eps, expected_eps, rtol=1e-6)
    expected = mean.astype(numpy.float64) + \
        numpy.sqrt(numpy.exp(ln_var.astype(numpy.float64))) * expected_eps
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-6)


def test_deterministic_under_seed():
    mean, ln_var = _inputs((4,), numpy.float32)
    numpy.random.seed(1)
    y1 = F.gaussian(mean, ln_var).array
    numpy.random.seed(1)
    y2 = F.gaussian(mean, ln_var).array
    numpy.testing.assert_array_equal(y1, y2)


def test_statistics():
    mean = numpy.full((100, 100), 2.0)
    ln_var = numpy.full((100, 100), numpy.log(9.0))
    numpy.random.seed(0)
    y = F.gaussian(mean, ln_var).array
    assert abs(y.mean() - 2.0) < 0.1
    assert abs(y.std() - 3.0) < 0.1


def test_given_eps_is_used():
    mean, ln_var = _inputs((2, 3), numpy.float64)
    eps = numpy.random.RandomState(3).standard_normal((2, 3))
    y, eps_out = F.gaussian(mean, ln_var, eps=eps, return_eps=True)
    numpy.testing.assert_array_equal(eps_out, eps)
    numpy.testing.assert_allclose(y.array, mean + numpy.exp(ln_var / 2) * eps)


@pytest.mark.parametrize('dtype', DTYPES)
def test_backward_with_retained_noise(dtype):
    mean, ln_var = _inputs((3, 4), dtype)
    eps = numpy.random.RandomState(4).standard_normal((3, 4)).astype(dtype)
    gy = numpy.random.RandomState(5).uniform(-1, 1, (3, 4)).astype(dtype)
    tols = {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3} \
        if dtype == numpy.float32 else {}
    gradient_check.check_backward(
        lambda m, v: F.gaussian(m, v, eps=eps), (mean, ln_var), gy, **tols)


def test_backward_reuses_the_drawn_noise():
    mean = cpuframe.Variable(numpy.zeros(5))
    ln_var = cpuframe.Variable(numpy.full(5, 0.5))
    y, eps = F.gaussian(mean, ln_var, return_eps=True)
    y.grad = numpy.ones(5)
    y.backward()
    numpy.testing.assert_allclose(mean.grad, numpy.ones(5))
    numpy.testing.assert_allclose(ln_var.grad,
                                  0.5 * numpy.exp(0.25) * eps)


def test_double_backward():
    rng = numpy.random.RandomState(6)
    mean, ln_var = _inputs((3, 4), numpy.float64)
    eps = rng.standard_normal((3, 4))
    gy, ggm, ggv = rng.uniform(-1, 1, (3, 3, 4))
    gradient_check.check_double_backward(
        lambda m, v: F.gaussian(m, v, eps=eps), (mean, ln_var), gy,
        (ggm, ggv))


def test_mismatched_shapes_are_rejected():
    with pytest.raises(type_check.InvalidType, match='Gaussian'):
        F.gaussian(numpy.zeros((2, 3)), numpy.zeros((3, 2)))


def test_mismatched_dtypes_are_rejected():
    with pytest.raises(type_check.InvalidType, match='Gaussian'):
        F.gaussian(numpy.zeros(3), numpy.zeros(3, numpy.float32))


def test_eps_of_wrong_shape_is_rejected():
    with pytest.raises(type_check.InvalidType, match='(?s)Gaussian.*eps'):
        F.gaussian(numpy.zeros(3), numpy.zeros(3), eps=numpy.zeros(2))


def test_unknown_keyword_is_rejected():
    with pytest.raises(TypeError, match='gaussian'):
        F.gaussian(numpy.zeros(3), numpy.zeros(3), foo=1)
