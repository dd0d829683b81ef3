import numpy
import pytest

import cpuframe
import cpuframe.links as L
from cpuframe import gradient_check


def _rand(shape, seed=0, dtype=numpy.float64):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _ref(x, beta):
    b = beta.reshape((1,) + beta.shape + (1,) * (x.ndim - beta.ndim - 1))
    return x / (1.0 + numpy.exp(-b * x))


@pytest.mark.parametrize('x_shape,beta_shape', [
    ((2, 3), (3,)),
    ((2, 3, 4), (3,)),
    ((2, 3, 4), (3, 4)),
    ((2, 3, 4), ()),
])
def test_swish_forward_backward(x_shape, beta_shape):
    link = L.Swish(beta_shape)
    assert [n for n, _ in link.namedparams()] == ['/beta']
    assert link.beta.shape == beta_shape and (link.beta.array == 1).all()
    x = _rand(x_shape, dtype=numpy.float32)
    numpy.testing.assert_allclose(link(x).array, _ref(x, link.beta.array),
                                  rtol=1e-5, atol=1e-6)
    link.beta.array = numpy.asarray(_rand(beta_shape, seed=1) + 1.5)
    x64 = x.astype(numpy.float64)
    numpy.testing.assert_allclose(link(x64).array, _ref(x64, link.beta.array),
                                  rtol=1e-12)
    gradient_check.check_backward(link, x64, _rand(x_shape, seed=2),
                                  params=(link.beta,), atol=1e-6, rtol=1e-5)


def test_swish_beta_init():
    link = L.Swish((3,), beta_init=0.5)
    assert (link.beta.array == 0.5).all()
    link = L.Swish((2,), beta_init=numpy.array([1.0, 2.0], numpy.float32))
    numpy.testing.assert_array_equal(link.beta.array, [1.0, 2.0])


def test_swish_lazy_shape():
    link = L.Swish(None)
    assert link.beta.array is None
    x = _rand((2, 3, 4), dtype=numpy.float32)
    y = link(x)
    assert link.beta.shape == (3, 4)
    numpy.testing.assert_allclose(y.array, _ref(x, link.beta.array),
                                  rtol=1e-5, atol=1e-6)


def test_swish_grad_end_to_end():
    link = L.Swish((3,))
    x = cpuframe.Variable(_rand((2, 3), dtype=numpy.float32))
    cpuframe.functions.sum(link(x)).backward()
    assert link.beta.grad is not None and link.beta.grad.shape == (3,)


def test_swish_bad_shape():
    link = L.Swish((4,))
    with pytest.raises(TypeError, match='[Ss]wish'):
        link(_rand((2, 3), dtype=numpy.float32))


def test_swish_lazy_bad_ndim():
    with pytest.raises(ValueError, match='Swish'):
        L.Swish(None)(_rand((3,), dtype=numpy.float32))
