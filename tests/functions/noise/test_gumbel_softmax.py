import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check


def _softmax(z, axis):
    e = numpy.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('shape,axis', [((3, 4), 1), ((2, 5, 3), 1),
                                        ((2, 3, 4), 2), ((4, 3), 0)])
@pytest.mark.parametrize('tau', [0.1, 1.0])
def test_forward(dtype, shape, axis, tau):
    log_p = numpy.log(numpy.random.RandomState(0).dirichlet(
        numpy.ones(shape[axis]), size=1)).astype(dtype)
    log_p = numpy.moveaxis(numpy.broadcast_to(
        log_p.reshape((1,) * (len(shape) - 1) + (shape[axis],)),
        shape[:axis] + shape[axis + 1:] + (shape[axis],)), -1, axis).copy()
    numpy.random.seed(7)
    y = F.gumbel_softmax(log_p, tau=tau, axis=axis)
    numpy.random.seed(7)
    g = numpy.random.gumbel(size=shape).astype(dtype)
    expected = _softmax((log_p.astype(numpy.float64) + g) / tau, axis)
    assert y.dtype == dtype and y.shape == shape
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-4, atol=1e-6)
    numpy.testing.assert_allclose(y.array.sum(axis=axis), 1, rtol=1e-5)


def test_samples_follow_the_distribution():
    p = numpy.array([0.1, 0.6, 0.3])
    log_p = numpy.tile(numpy.log(p), (20000, 1))
    numpy.random.seed(0)
    y = F.gumbel_softmax(log_p, tau=0.01).array
    freq = numpy.bincount(y.argmax(axis=1), minlength=3) / len(y)
    numpy.testing.assert_allclose(freq, p, atol=0.02)


def test_backward():
    rng = numpy.random.RandomState(1)
    log_p = numpy.log(rng.dirichlet(numpy.ones(4), size=3))

    def f(x):
        numpy.random.seed(11)  # the same noise at every evaluation
        return F.gumbel_softmax(x, tau=0.7)
    gy = rng.uniform(-1, 1, log_p.shape)
    gradient_check.check_backward(f, (log_p,), gy)
    gradient_check.check_double_backward(
        f, (log_p,), gy, (rng.uniform(-1, 1, log_p.shape),))


def test_zero_dim_and_bad_inputs():
    y = F.gumbel_softmax(numpy.array(0.5, numpy.float32))
    assert y.shape == () and y.array == 1
    with pytest.raises(TypeError, match='gumbel_softmax'):
        F.gumbel_softmax(numpy.zeros((2, 3), numpy.int32))
    with pytest.raises(ValueError, match='gumbel_softmax'):
        F.gumbel_softmax(numpy.zeros((2, 3)), axis=2)
