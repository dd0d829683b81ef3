import warnings

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

# (x shape, gamma shape, the reduced axes)
CASES = [
    ((5, 3), (3,), (0,)),
    ((4, 3, 2, 3), (3,), (0, 2, 3)),
    ((4, 3, 2, 3), (3, 2), (0, 3)),
]


def _keep(x_shape, axes):
    return tuple(1 if i in axes else s for i, s in enumerate(x_shape))


def _reference(x, gamma, beta, rm, rv, rmax, dmax, axes, eps):
    """The paper's formula (Chainer's variant), in float64 loops over c."""
    x = x.astype(numpy.float64)
    keep = _keep(x.shape, axes)
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    sigma = numpy.sqrt(var + eps)
    run_sigma = numpy.sqrt(rv.reshape(keep) + eps)
    r = numpy.clip(sigma / run_sigma, 1 / rmax, rmax)
    d = numpy.clip((mean - rm.reshape(keep)) / run_sigma, -dmax, dmax)
    y = gamma.reshape(keep) * ((x - mean) / sigma * r + d) + \
        beta.reshape(keep)
    return y, mean.reshape(gamma.shape), var.reshape(gamma.shape), r, d


def _inputs(x_shape, gamma_shape, dtype, seed):
    rng = numpy.random.RandomState(seed)
    x = rng.normal(1.0, 2.0, x_shape).astype(dtype)
    gamma = rng.uniform(0.5, 1.5, gamma_shape).astype(dtype)
    beta = rng.uniform(-1, 1, gamma_shape).astype(dtype)
    rm = rng.normal(0, 1, gamma_shape).astype(dtype)
    rv = rng.uniform(0.5, 8, gamma_shape).astype(dtype)
    return x, gamma, beta, rm, rv


def _tols(dtype):
    if dtype == numpy.float32:
        return {'rtol': 1e-4, 'atol': 1e-4}
    return {'rtol': 1e-10, 'atol': 1e-10}


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('x_shape,gamma_shape,axes', CASES)
@pytest.mark.parametrize('rmax,dmax', [(1, 0), (1.5, 0.3), (10., 10.)])
def test_forward(dtype, x_shape, gamma_shape, axes, rmax, dmax):
    x, gamma, beta, rm, rv = _inputs(x_shape, gamma_shape, dtype, 0)
    rm0, rv0 = rm.copy(), rv.copy()
    y = F.batch_renormalization(cpuframe.Variable(x), gamma, beta, rmax,
                                dmax, running_mean=rm, running_var=rv)
    assert y.dtype == dtype and y.shape == x_shape
    expected = _reference(x, gamma, beta, rm, rv, rmax, dmax, axes, 2e-5)[0]
    numpy.testing.assert_allclose(y.array, expected, **_tols(dtype))
    # Without update_statistics the running statistics stay as they were.
    numpy.testing.assert_array_equal(rm, rm0)
    numpy.testing.assert_array_equal(rv, rv0)


def test_rmax1_dmax0_is_batch_normalization():
    x, gamma, beta, rm, rv = _inputs((6, 4, 3), (4,), numpy.float64, 1)
    y = F.batch_renormalization(x, gamma, beta, 1, 0, running_mean=rm,
                                running_var=rv)
    numpy.testing.assert_allclose(
        y.array, F.batch_normalization(x, gamma, beta).array, rtol=1e-12)


@pytest.mark.parametrize('x_shape,gamma_shape,axes', CASES)
@pytest.mark.parametrize('decay', [0.9, 0.5])
def test_update_statistics(x_shape, gamma_shape, axes, decay):
    x, gamma, beta, rm, rv = _inputs(x_shape, gamma_shape, numpy.float64, 2)
    rm0, rv0 = rm.copy(), rv.copy()
    eps = 1e-3
    F.batch_renormalization(x, gamma, beta, 2., 1., eps=eps, running_mean=rm,
                            running_var=rv, decay=decay,
                            update_statistics=True)
    _, mean, var, _, _ = _reference(x, gamma, beta, rm0, rv0, 2., 1., axes,
                                    eps)
    m = x.size // gamma.size
    numpy.testing.assert_allclose(rm, decay * rm0 + (1 - decay) * mean)
    numpy.testing.assert_allclose(
        rv, decay * rv0 + (1 - decay) * var * m / (m - 1))


def test_r_d_are_exposed_and_clipped():
    x, gamma, beta, rm, rv = _inputs((8, 3), (3,), numpy.float64, 3)
    y = F.batch_renormalization(cpuframe.Variable(x), gamma, beta, 1.2, 0.1,
                                running_mean=rm, running_var=rv)
    node = y.creator
    _, _, _, r, d = _reference(x, gamma, beta, rm, rv, 1.2, 0.1, (0,), 2e-5)
    numpy.testing.assert_allclose(node.r, r.ravel())
    numpy.testing.assert_allclose(node.d, d.ravel())
    assert (node.r >= 1 / 1.2 - 1e-12).all() and (node.r <= 1.2 + 1e-12).all()
    assert (abs(node.d) <= 0.1 + 1e-12).all()


def _saturating_inputs(x_shape, gamma_shape, seed):
    """Running statistics far from the batch's, so r and d sit at a bound.

    There r and d do not move under small changes of x, and the analytic
    gradient (which holds them constant) is the true derivative.
    """
    x, gamma, beta, _, _ = _inputs(x_shape, gamma_shape, numpy.float64, seed)
    rng = numpy.random.RandomState(seed + 10)
    sign = numpy.where(rng.uniform(size=gamma_shape) < 0.5, -1.0, 1.0)
    rm = numpy.where(sign > 0, 50.0, -500.0)
    rv = numpy.where(sign > 0, 1e-4, 1e4)
    return x, gamma, beta, rm, rv


@pytest.mark.parametrize('x_shape,gamma_shape,axes', CASES)
def test_backward(x_shape, gamma_shape, axes):
    x, gamma, beta, rm, rv = _saturating_inputs(x_shape, gamma_shape, 4)
    rng = numpy.random.RandomState(5)

    def f(x, gamma, beta):
        return F.batch_renormalization(x, gamma, beta, 1.5, 0.7,
                                       running_mean=rm, running_var=rv)
    gy = rng.uniform(-1, 1, x_shape)
    gradient_check.check_backward(f, (x, gamma, beta), gy, atol=1e-5,
                                  rtol=1e-4)
    ggs = (rng.uniform(-1, 1, x_shape), rng.uniform(-1, 1, gamma_shape),
           rng.uniform(-1, 1, gamma_shape))
    gradient_check.check_double_backward(f, (x, gamma, beta), gy, ggs,
                                         atol=1e-5, rtol=1e-4)


def test_backward_holds_r_d_constant():
    """Inside the bounds the gradient is gamma * r times the BN projection."""
    x, gamma, beta, rm, rv = _inputs((7, 3), (3,), numpy.float64, 6)
    xv = cpuframe.Variable(x)
    gv = cpuframe.Variable(gamma)
    y = F.batch_renormalization(xv, gv, beta, 10., 10., running_mean=rm,
                                running_var=rv)
    gy = numpy.random.RandomState(7).uniform(-1, 1, x.shape)
    y.grad = gy
    y.backward()
    _, _, _, r, d = _reference(x, gamma, beta, rm, rv, 10., 10., (0,), 2e-5)
    xv2 = cpuframe.Variable(x)
    gv2 = cpuframe.Variable(gamma * r.ravel())
    y2 = F.batch_normalization(xv2, gv2, beta)
    y2.grad = gy
    y2.backward()
    numpy.testing.assert_allclose(xv.grad, xv2.grad, rtol=1e-10, atol=1e-12)
    x_hat = (x - x.mean(0)) / numpy.sqrt(x.var(0) + 2e-5)
    numpy.testing.assert_allclose(
        gv.grad, (gy * (x_hat * r + d)).sum(0), rtol=1e-10)


def test_float16():
    x, gamma, beta, rm, rv = _inputs((6, 3), (3,), numpy.float16, 8)
    y = F.batch_renormalization(x, gamma, beta, 2., 1., running_mean=rm,
                                running_var=rv)
    assert y.dtype == numpy.float16
    expected = _reference(x, gamma.astype(numpy.float64),
                          beta.astype(numpy.float64),
                          rm.astype(numpy.float64), rv.astype(numpy.float64),
                          2., 1., (0,), 2e-5)[0]
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-2, atol=1e-2)


def test_bad_inputs():
    x = numpy.zeros((4, 3), numpy.float32)
    g = numpy.ones(3, numpy.float32)
    with pytest.raises(TypeError, match='batch_renormalization'):
        F.batch_renormalization(x, g, g, 1, 0)
    with pytest.raises(type_check.InvalidType, match='BatchRenormalization'):
        F.batch_renormalization(x, numpy.ones(4, numpy.float32),
                                numpy.ones(4, numpy.float32), 1, 0,
                                running_mean=g, running_var=g)
    with pytest.raises(type_check.InvalidType, match='running_var'):
        F.batch_renormalization(x, g, g, 1, 0, running_mean=g,
                                running_var=numpy.ones(2, numpy.float32))
    with pytest.raises(type_check.InvalidType, match='BatchRenormalization'):
        F.batch_renormalization(x.astype(numpy.int32), g, g, 1, 0,
                                running_mean=g, running_var=g)
    with pytest.raises(ValueError, match='rmax'):
        F.batch_renormalization(x, g, g, 0.5, 0, running_mean=g,
                                running_var=g)
    with pytest.raises(ValueError, match='dmax'):
        F.batch_renormalization(x, g, g, 1, -1, running_mean=g,
                                running_var=g)


def test_fixed_batch_renormalization_deprecated():
    x, gamma, beta, rm, rv = _inputs((5, 3), (3,), numpy.float64, 9)
    with pytest.warns(DeprecationWarning):
        y = F.fixed_batch_renormalization(x, gamma, beta, rm, rv, eps=1e-3)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        expected = F.fixed_batch_normalization(x, gamma, beta, rm, rv,
                                               eps=1e-3)
    numpy.testing.assert_allclose(
        y.array, gamma * (x - rm) / numpy.sqrt(rv + 1e-3) + beta)
    numpy.testing.assert_allclose(y.array, expected.array)
