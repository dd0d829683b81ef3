import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


def _x(shape, dtype, seed=0):
    x = numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)
    x[abs(x) < 0.05] = 0.5  # away from the kink for numerical gradients
    return x


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32,
                                   numpy.float64])
@pytest.mark.parametrize('shape', [(5,), (3, 4), (2, 3, 4)])
def test_forward_train(dtype, shape):
    x = _x(shape, dtype)
    numpy.random.seed(3)
    y, r = F.rrelu(x, l=0.1, u=0.3, return_r=True)
    assert y.dtype == dtype and r.dtype == dtype and r.shape == shape
    assert (r >= 0.1 - 1e-3).all() and (r < 0.3 + 1e-3).all()
    assert len(numpy.unique(r)) > 1
    expected = numpy.where(x >= 0, x, x * r)
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-3)
    # The same seed draws the same slopes.
    numpy.random.seed(3)
    numpy.testing.assert_array_equal(F.rrelu(x, l=0.1, u=0.3).array, y.array)


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
def test_forward_test_mode(dtype):
    x = _x((4, 3), dtype)
    with cpuframe.using_config('train', False):
        y, r = F.rrelu(x, return_r=True)
    s = (1 / 8 + 1 / 3) / 2
    numpy.testing.assert_allclose(r, numpy.full(x.shape, s), rtol=1e-6)
    numpy.testing.assert_allclose(y.array, numpy.where(x >= 0, x, s * x),
                                  rtol=1e-6)


def test_given_r():
    x = _x((3, 4), numpy.float64)
    r = numpy.random.RandomState(1).uniform(0.2, 0.25, x.shape)
    y, r_used = F.rrelu(x, 0.2, 0.25, r=r, return_r=True)
    assert r_used is r
    numpy.testing.assert_allclose(y.array, numpy.where(x >= 0, x, r * x))


@pytest.mark.parametrize('train', [True, False])
def test_backward(train):
    x = _x((3, 4), numpy.float64, 2)
    r = numpy.random.RandomState(1).uniform(0.1, 0.3, x.shape)
    rng = numpy.random.RandomState(4)

    def f(x):
        with cpuframe.using_config('train', train):
            return F.rrelu(x, 0.1, 0.3, r=r)
    gy = rng.uniform(-1, 1, x.shape)
    gradient_check.check_backward(f, (x,), gy)
    gradient_check.check_double_backward(f, (x,), gy,
                                         (rng.uniform(-1, 1, x.shape),))
    xv = cpuframe.Variable(x)
    y = f(xv)
    y.grad = gy
    y.backward()
    slope = r if train else numpy.full(x.shape, 0.2)
    numpy.testing.assert_allclose(xv.grad, numpy.where(x >= 0, gy,
                                                       gy * slope))


def test_bad_inputs():
    x = _x((3,), numpy.float32)
    with pytest.raises(ValueError, match='rrelu'):
        F.rrelu(x, l=0.5, u=0.2)
    with pytest.raises(ValueError, match='rrelu'):
        F.rrelu(x, l=-0.1)
    with pytest.raises(ValueError, match='rrelu'):
        F.rrelu(x, u=1.0)
    with pytest.raises(type_check.InvalidType, match='RReLU'):
        F.rrelu(x, r=numpy.ones(4, numpy.float32))
    with pytest.raises(type_check.InvalidType, match='RReLU'):
        F.rrelu(x, r=numpy.ones(3, numpy.float64))
    with pytest.raises(type_check.InvalidType, match='RReLU'):
        F.rrelu(numpy.arange(3))
    with pytest.raises(ValueError, match='train'):
        F.rrelu(x, train=True)
    with pytest.raises(TypeError, match='unexpected'):
        F.rrelu(x, mask=None)
