"""gaussian_kl_divergence, bernoulli_nll and gaussian_nll."""
import math

import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


def _kl(mean, ln_var):
    out = numpy.zeros(numpy.broadcast_shapes(mean.shape, ln_var.shape))
    mean, ln_var = numpy.broadcast_arrays(mean, ln_var)
    for i in numpy.ndindex(*out.shape):
        m, lv = float(mean[i]), float(ln_var[i])
        out[i] = 0.5 * (m * m + math.exp(lv) - lv - 1)
    return out


def _bernoulli(x, y):
    out = numpy.zeros(numpy.broadcast_shapes(x.shape, y.shape))
    x, y = numpy.broadcast_arrays(x, y)
    for i in numpy.ndindex(*out.shape):
        p = 1 / (1 + math.exp(-float(y[i])))
        out[i] = -(x[i] * math.log(p) + (1 - x[i]) * math.log(1 - p))
    return out


def _gaussian(x, mean, ln_var):
    out = numpy.zeros(numpy.broadcast_shapes(x.shape, mean.shape,
                                             ln_var.shape))
    x, mean, ln_var = numpy.broadcast_arrays(x, mean, ln_var)
    for i in numpy.ndindex(*out.shape):
        var = math.exp(float(ln_var[i]))
        d = float(x[i]) - float(mean[i])
        out[i] = 0.5 * math.log(2 * math.pi * var) + d * d / (2 * var)
    return out


CASES = [
    (F.gaussian_kl_divergence, _kl, 2, 'GaussianKLDivergence'),
    (F.bernoulli_nll, _bernoulli, 2, 'BernoulliNLL'),
    (F.gaussian_nll, _gaussian, 3, 'GaussianNLL'),
]
IDS = ['gaussian_kl_divergence', 'bernoulli_nll', 'gaussian_nll']


def _inputs(rng, n, shapes, dtype):
    return tuple(rng.uniform(-1, 1, s).astype(dtype) for s in shapes[:n])


@pytest.mark.parametrize('func,ref,n,label', CASES, ids=IDS)
@pytest.mark.parametrize('reduce', ['sum', 'no'])
@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('shapes', [[(3, 4)] * 3, [(3, 4), (1, 4), (3, 1)]])
def test_forward(func, ref, n, label, reduce, dtype, shapes):
    xs = _inputs(numpy.random.RandomState(0), n, shapes, dtype)
    y = func(*xs, reduce=reduce)
    expected = ref(*xs)
    if reduce == 'sum':
        expected = expected.sum()
    assert y.dtype == dtype and y.shape == expected.shape
    tol = 1e-5 if dtype == numpy.float32 else 1e-12
    numpy.testing.assert_allclose(y.array, expected, rtol=tol)


def test_bernoulli_nll_is_stable():
    y = F.bernoulli_nll(numpy.array([1., 0.]), numpy.array([-800., 800.]),
                        reduce='no')
    numpy.testing.assert_allclose(y.array, [800., 800.])


@pytest.mark.parametrize('func,ref,n,label', CASES, ids=IDS)
@pytest.mark.parametrize('reduce', ['sum', 'no'])
@pytest.mark.parametrize('shapes', [[(3, 2)] * 3, [(3, 2), (1, 2), (3, 1)]])
def test_backward_and_double_backward(func, ref, n, label, reduce, shapes):
    rng = numpy.random.RandomState(1)
    xs = _inputs(rng, n, shapes, numpy.float64)
    out_shape = ref(*xs).shape
    gy = numpy.asarray(rng.randn() if reduce == 'sum' else
                       rng.randn(*out_shape))

    def f(*xs):
        return func(*xs, reduce=reduce)
    gradient_check.check_backward(f, xs, gy, atol=1e-7, rtol=1e-5)
    ggxs = tuple(rng.randn(*x.shape) for x in xs)
    gradient_check.check_double_backward(f, xs, gy, ggxs, atol=1e-7,
                                         rtol=1e-5)


@pytest.mark.parametrize('func,ref,n,label', CASES, ids=IDS)
def test_backward_float32(func, ref, n, label):
    xs = _inputs(numpy.random.RandomState(2), n, [(3, 2)] * 3,
                 numpy.float32)
    gradient_check.check_backward(func, xs, None, dtype=numpy.float64,
                                  atol=1e-3, rtol=1e-3)


@pytest.mark.parametrize('func,ref,n,label', CASES, ids=IDS)
@pytest.mark.parametrize('bad', ['shape', 'dtype', 'int'])
def test_bad_input(func, ref, n, label, bad):
    xs = [numpy.zeros((3, 2), numpy.float32) for _ in range(n)]
    if bad == 'shape':
        xs[-1] = numpy.zeros((3, 3), numpy.float32)
    elif bad == 'dtype':
        xs[-1] = xs[-1].astype(numpy.float64)
    else:
        xs = [x.astype(numpy.int32) for x in xs]
    with pytest.raises(type_check.InvalidType, match=label):
        func(*xs)


@pytest.mark.parametrize('func,ref,n,label', CASES, ids=IDS)
def test_invalid_reduce(func, ref, n, label):
    with pytest.raises(ValueError, match=func.__name__) as e:
        func(*[numpy.zeros(2)] * n, reduce='mean')
    assert "'sum' and 'no'" in str(e.value)
