import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32,
                                   numpy.float64])
@pytest.mark.parametrize('ratio', [0.0, 0.3, 1.0])
def test_forward(dtype, ratio):
    rng = numpy.random.RandomState(0)
    h = rng.uniform(1, 2, (30, 40)).astype(dtype)
    x = rng.uniform(-2, -1, (30, 40)).astype(dtype)
    numpy.random.seed(5)
    y = F.zoneout(h, x, ratio)
    numpy.random.seed(5)
    keep_x = numpy.random.random_sample(x.shape) >= ratio
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, numpy.where(keep_x, x, h))
    frac_h = (y.array > 0).mean()
    assert abs(frac_h - ratio) < 0.06


def test_test_mode_returns_x():
    h, x = numpy.zeros(4, numpy.float32), numpy.ones(4, numpy.float32)
    with cpuframe.using_config('train', False):
        y = F.zoneout(h, x, ratio=0.9)
    assert isinstance(y, cpuframe.Variable)
    numpy.testing.assert_array_equal(y.array, x)


def test_backward():
    rng = numpy.random.RandomState(1)
    h = rng.uniform(-1, 1, (3, 4))
    x = rng.uniform(-1, 1, (3, 4))

    def f(h, x):
        numpy.random.seed(2)
        return F.zoneout(h, x, 0.4)
    gy = rng.uniform(-1, 1, (3, 4))
    gradient_check.check_backward(f, (h, x), gy)
    gradient_check.check_double_backward(
        f, (h, x), gy, (rng.uniform(-1, 1, (3, 4)),
                        rng.uniform(-1, 1, (3, 4))))
    hv, xv = cpuframe.Variable(h), cpuframe.Variable(x)
    y = f(hv, xv)
    y.grad = gy
    y.backward()
    from_h = y.array == h
    numpy.testing.assert_array_equal(hv.grad, numpy.where(from_h, gy, 0))
    numpy.testing.assert_array_equal(xv.grad, numpy.where(from_h, 0, gy))


def test_bad_inputs():
    a = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(type_check.InvalidType, match='Zoneout'):
        F.zoneout(a, numpy.zeros((3, 2), numpy.float32))
    with pytest.raises(type_check.InvalidType, match='Zoneout'):
        F.zoneout(a, a.astype(numpy.float64))
    with pytest.raises(ValueError, match='zoneout'):
        F.zoneout(a, a, ratio=1.5)
    with cpuframe.using_config('train', False):
        with pytest.raises(ValueError, match='zoneout'):
            F.zoneout(a, a, ratio=-0.1)
