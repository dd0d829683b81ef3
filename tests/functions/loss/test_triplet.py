import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


def _reference(a, p, n, margin, reduce):
    out = numpy.zeros(len(a))
    for i in range(len(a)):
        dp = sum((float(u) - float(v)) ** 2 for u, v in zip(a[i], p[i]))
        dn = sum((float(u) - float(v)) ** 2 for u, v in zip(a[i], n[i]))
        out[i] = max(dp - dn + margin, 0.0)
    return out.mean() if reduce == 'mean' else out


def _inputs(rng, margin, dtype=numpy.float64):
    a, p, n = (rng.uniform(-1, 1, (5, 3)).astype(dtype) for _ in range(3))
    # keep the hinge argument away from 0 (a kink)
    arg = ((a - p) ** 2).sum(axis=1) - ((a - n) ** 2).sum(axis=1) + margin
    p[abs(arg) < 0.1] += 0.2
    return a, p, n


@pytest.mark.parametrize('margin', [0.2, 1.0])
@pytest.mark.parametrize('reduce', ['mean', 'no'])
@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
def test_forward(margin, reduce, dtype):
    a, p, n = _inputs(numpy.random.RandomState(0), margin, dtype)
    y = F.triplet(a, p, n, margin, reduce)
    expected = _reference(a, p, n, margin, reduce)
    assert y.dtype == dtype and y.shape == numpy.shape(expected)
    tol = 1e-5 if dtype == numpy.float32 else 1e-12
    numpy.testing.assert_allclose(y.array, expected, rtol=tol, atol=tol)


@pytest.mark.parametrize('margin', [0.2, 1.0])
@pytest.mark.parametrize('reduce', ['mean', 'no'])
def test_backward_and_double_backward(margin, reduce):
    rng = numpy.random.RandomState(1)
    xs = _inputs(rng, margin)
    gy = numpy.asarray(rng.randn() if reduce == 'mean' else rng.randn(5))

    def f(a, p, n):
        return F.triplet(a, p, n, margin, reduce)
    gradient_check.check_backward(f, xs, gy, atol=1e-7, rtol=1e-5)
    gradient_check.check_double_backward(
        f, xs, gy, tuple(rng.randn(5, 3) for _ in range(3)), atol=1e-7,
        rtol=1e-5)


def test_backward_float32():
    xs = _inputs(numpy.random.RandomState(2), 0.2, numpy.float32)
    gradient_check.check_backward(F.triplet, xs, None, dtype=numpy.float64,
                                  atol=1e-3, rtol=1e-3)


@pytest.mark.parametrize('bad', ['shape', 'dtype', 'int', 'ndim', 'empty'])
def test_bad_input(bad):
    xs = [numpy.zeros((2, 3), numpy.float32) for _ in range(3)]
    if bad == 'shape':
        xs[2] = numpy.zeros((2, 4), numpy.float32)
    elif bad == 'dtype':
        xs[1] = xs[1].astype(numpy.float64)
    elif bad == 'int':
        xs = [x.astype(numpy.int32) for x in xs]
    elif bad == 'ndim':
        xs = [numpy.zeros(3, numpy.float32) for _ in range(3)]
    else:
        xs = [numpy.zeros((0, 3), numpy.float32) for _ in range(3)]
    with pytest.raises(type_check.InvalidType, match='Triplet'):
        F.triplet(*xs)


def test_invalid_options():
    xs = [numpy.zeros((2, 3)) for _ in range(3)]
    with pytest.raises(ValueError, match='triplet.*margin'):
        F.triplet(*xs, margin=-1)
    with pytest.raises(ValueError, match="triplet.*'mean' and 'no'"):
        F.triplet(*xs, reduce='no_reduce')
