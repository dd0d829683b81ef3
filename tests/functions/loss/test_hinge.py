import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


def _reference(x, t, norm, reduce):
    n, k = x.shape
    out = numpy.zeros((n, k))
    for i in range(n):
        for j in range(k):
            sign = 1.0 if t[i] == j else -1.0
            v = max(0.0, 1.0 - sign * float(x[i, j]))
            out[i, j] = v if norm == 'L1' else v * v
    return out.sum() / n if reduce == 'mean' else out


def _inputs(rng, dtype=numpy.float64):
    x = rng.uniform(-2, 2, (4, 3)).astype(dtype)
    # keep 1 -+ x away from 0, where the hinge has a kink
    x[abs(abs(x) - 1) < 0.1] += 0.3
    t = rng.randint(0, 3, 4).astype(numpy.int32)
    return x, t


@pytest.mark.parametrize('norm', ['L1', 'L2'])
@pytest.mark.parametrize('reduce', ['mean', 'no'])
@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
def test_forward(norm, reduce, dtype):
    x, t = _inputs(numpy.random.RandomState(0), dtype)
    y = F.hinge(x, t, norm=norm, reduce=reduce)
    expected = _reference(x, t, norm, reduce)
    assert y.dtype == dtype and y.shape == numpy.shape(expected)
    tol = 1e-6 if dtype == numpy.float32 else 1e-13
    numpy.testing.assert_allclose(y.array, expected, rtol=tol, atol=tol)


def test_chainer_example():
    x = numpy.array([[-2., 3., 0.5], [5., 2., -0.5]], numpy.float32)
    t = numpy.array([1, 0], numpy.int32)
    assert float(F.hinge(x, t).array) == 2.5
    assert float(F.hinge(x, t, norm='L2').array) == 5.75
    numpy.testing.assert_allclose(F.hinge(x, t, reduce='no').array,
                                  [[0., 0., 1.5], [0., 3., 0.5]])


@pytest.mark.parametrize('norm', ['L1', 'L2'])
@pytest.mark.parametrize('reduce', ['mean', 'no'])
def test_backward_and_double_backward(norm, reduce):
    rng = numpy.random.RandomState(1)
    x, t = _inputs(rng)
    gy = numpy.asarray(rng.randn() if reduce == 'mean' else rng.randn(4, 3))

    def f(x):
        return F.hinge(x, t, norm, reduce)
    gradient_check.check_backward(f, x, gy, atol=1e-7, rtol=1e-5)
    gradient_check.check_double_backward(f, x, gy, rng.randn(4, 3),
                                         atol=1e-7, rtol=1e-5)


def test_backward_float32():
    rng = numpy.random.RandomState(2)
    x, t = _inputs(rng, numpy.float32)
    gradient_check.check_backward(lambda x: F.hinge(x, t, 'L2'), x, None,
                                  dtype=numpy.float64, atol=1e-3, rtol=1e-3)


@pytest.mark.parametrize('x,t', [
    (numpy.zeros((4, 3), numpy.float32), numpy.zeros(4, numpy.float32)),
    (numpy.zeros((4, 3), numpy.float32), numpy.zeros(5, numpy.int32)),
    (numpy.zeros((4, 3, 1), numpy.float32), numpy.zeros(4, numpy.int32)),
    (numpy.zeros((4, 3), numpy.int32), numpy.zeros(4, numpy.int32)),
])
def test_bad_input(x, t):
    with pytest.raises(type_check.InvalidType, match='Hinge'):
        F.hinge(x, t)


@pytest.mark.parametrize('label', [3, -1])
def test_out_of_range_label(label):
    with pytest.raises(ValueError, match='hinge'):
        F.hinge(numpy.zeros((2, 3)), numpy.array([0, label], numpy.int32))


def test_invalid_options():
    with pytest.raises(ValueError, match="hinge.*'L1' or 'L2'"):
        F.hinge(numpy.zeros((2, 3)), numpy.zeros(2, 'i'), norm='L3')
    with pytest.raises(ValueError, match="hinge.*'mean' and 'no'"):
        F.hinge(numpy.zeros((2, 3)), numpy.zeros(2, 'i'), reduce='sum')
