"""The intel64 parity tests of this op:
tests/backends/intel64/test_batch_normalization.py and test_edge_values.py.
"""
import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

# (x shape, gamma shape, axis, the reduced axes that axis means)
CASES = [
    ((5, 3), (3,), None, (0,)),
    ((5, 3), (3,), 0, (0,)),
    ((4, 3, 2, 3), (3,), None, (0, 2, 3)),
    ((4, 3, 2, 3), (3,), (0, 2, 3), (0, 2, 3)),
    ((4, 3, 2, 3), (3, 2), None, (0, 3)),
    ((4, 3, 2, 3), (2, 3), (0, 1), (0, 1)),
    ((4, 3, 5), (4,), (1, 2), (1, 2)),
]


def _keep(x_shape, axes):
    return tuple(1 if i in axes else s for i, s in enumerate(x_shape))


def _reference(x, gamma, beta, axes, eps):
    """The hand formula, in float64."""
    x = x.astype(numpy.float64)
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    keep = _keep(x.shape, axes)
    y = gamma.reshape(keep) * (x - mean) / numpy.sqrt(var + eps) + \
        beta.reshape(keep)
    return y, mean.reshape(gamma.shape), var.reshape(gamma.shape)


def _inputs(x_shape, gamma_shape, dtype, seed):
    rng = numpy.random.RandomState(seed)
    x = rng.normal(1.0, 2.0, x_shape).astype(dtype)
    gamma = rng.uniform(0.5, 1.5, gamma_shape).astype(dtype)
    beta = rng.uniform(-1, 1, gamma_shape).astype(dtype)
    return x, gamma, beta


def _tols(dtype):
    if dtype == numpy.float32:
        return {'rtol': 1e-4, 'atol': 1e-4}
    return {'rtol': 1e-10, 'atol': 1e-10}


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('x_shape,gamma_shape,axis,axes', CASES)
@pytest.mark.parametrize('eps', [2e-5, 0.5])
def test_forward(dtype, x_shape, gamma_shape, axis, axes, eps):
    x, gamma, beta = _inputs(x_shape, gamma_shape, dtype, 0)
    kwargs = {'eps': eps} if eps != 2e-5 else {}
    if axis is not None:
        kwargs['axis'] = axis
    y = F.batch_normalization(cpuframe.Variable(x), gamma, beta, **kwargs)
    assert y.dtype == dtype and y.shape == x_shape
    expected, _, _ = _reference(x, gamma, beta, axes, eps)
    numpy.testing.assert_allclose(y.array, expected, **_tols(dtype))


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('x_shape,gamma_shape,axis,axes', CASES)
@pytest.mark.parametrize('decay', [0.9, 0.5])
def test_running_statistics(dtype, x_shape, gamma_shape, axis, axes, decay):
    x, gamma, beta = _inputs(x_shape, gamma_shape, dtype, 1)
    rng = numpy.random.RandomState(2)
    running_mean = rng.normal(size=gamma_shape).astype(dtype)
    running_var = rng.uniform(0.5, 2, gamma_shape).astype(dtype)
    rm0, rv0 = running_mean.copy(), running_var.copy()
    F.batch_normalization(x, gamma, beta, running_mean=running_mean,
                          running_var=running_var, decay=decay, axis=axis)
    _, mean, var = _reference(x, gamma, beta, axes, 2e-5)
    m = x.size // gamma.size
    numpy.testing.assert_allclose(
        running_mean, decay * rm0 + (1 - decay) * mean, **_tols(dtype))
    numpy.testing.assert_allclose(
        running_var, decay * rv0 + (1 - decay) * var * m / (m - 1),
        **_tols(dtype))


def test_running_statistics_accept_variables_and_one_element():
    x = numpy.array([[2.0, -1.0]])
    rm, rv = numpy.zeros(2), numpy.ones(2)
    F.batch_normalization(x, numpy.ones(2), numpy.zeros(2),
                          running_mean=cpuframe.Variable(rm),
                          running_var=rv)
    numpy.testing.assert_allclose(rm, [0.2, -0.1])
    # m == 1: the unbiased correction m / max(m - 1, 1) is 1.
    numpy.testing.assert_allclose(rv, [0.9, 0.9])


def test_only_running_mean():
    x, gamma, beta = _inputs((6, 2), (2,), numpy.float64, 3)
    rm = numpy.zeros(2)
    F.batch_normalization(x, gamma, beta, running_mean=rm)
    numpy.testing.assert_allclose(rm, 0.1 * x.mean(axis=0))


def test_uses_batch_statistics_in_test_mode():
    x, gamma, beta = _inputs((5, 3), (3,), numpy.float64, 4)
    with cpuframe.using_config('train', False):
        y = F.batch_normalization(x, gamma, beta)
    numpy.testing.assert_allclose(
        y.array, _reference(x, gamma, beta, (0,), 2e-5)[0])


@pytest.mark.parametrize('x_shape,gamma_shape,axis,axes', CASES)
def test_backward(x_shape, gamma_shape, axis, axes):
    x, gamma, beta = _inputs(x_shape, gamma_shape, numpy.float64, 5)
    rng = numpy.random.RandomState(6)
    gy = rng.uniform(-1, 1, x_shape)

    def f(x, gamma, beta):
        return F.batch_normalization(x, gamma, beta, axis=axis)
    gradient_check.check_backward(f, (x, gamma, beta), gy)


def test_backward_float32():
    x, gamma, beta = _inputs((6, 3, 2), (3,), numpy.float32, 7)
    gy = numpy.random.RandomState(8).uniform(-1, 1, x.shape).astype(
        numpy.float32)
    gradient_check.check_backward(
        F.batch_normalization, (x, gamma, beta), gy, dtype=numpy.float64,
        atol=1e-3, rtol=1e-3)


@pytest.mark.parametrize('x_shape,gamma_shape,axis,axes', CASES)
def test_double_backward(x_shape, gamma_shape, axis, axes):
    x, gamma, beta = _inputs(x_shape, gamma_shape, numpy.float64, 9)
    rng = numpy.random.RandomState(10)
    gy = rng.uniform(-1, 1, x_shape)
    ggs = (rng.uniform(-1, 1, x_shape), rng.uniform(-1, 1, gamma_shape),
           rng.uniform(-1, 1, gamma_shape))

    def f(x, gamma, beta):
        return F.batch_normalization(x, gamma, beta, axis=axis)
    gradient_check.check_double_backward(f, (x, gamma, beta), gy, ggs)


def test_third_order():
    # BatchNormalizationGrad's own gradient is differentiable again.
    x, gamma, beta = _inputs((5, 2, 2), (2,), numpy.float64, 11)
    rng = numpy.random.RandomState(12)
    gy = rng.uniform(-1, 1, x.shape)

    def first_order(x, gamma, beta, gy):
        y = F.batch_normalization(x, gamma, beta)
        return tuple(cpuframe.grad([y], [x, gamma, beta], [gy],
                                   enable_double_backprop=True))
    y_grad = (rng.uniform(-1, 1, x.shape), rng.uniform(-1, 1, (2,)),
              rng.uniform(-1, 1, (2,)))
    x_grad_grad = (rng.uniform(-1, 1, x.shape), rng.uniform(-1, 1, (2,)),
                   rng.uniform(-1, 1, (2,)), rng.uniform(-1, 1, x.shape))
    gradient_check.check_double_backward(
        first_order, (x, gamma, beta, gy), y_grad, x_grad_grad,
        atol=1e-4, rtol=1e-3)


def test_gradient_values():
    # gx = gamma * r * (gy - mean(gy) - x_hat * mean(gy * x_hat))
    x, gamma, beta = _inputs((6, 2), (2,), numpy.float64, 13)
    gy = numpy.random.RandomState(14).normal(size=x.shape)
    xv, gv, bv = (cpuframe.Variable(a) for a in (x, gamma, beta))
    y = F.batch_normalization(xv, gv, bv)
    y.grad = gy
    y.backward()
    mean, var = x.mean(axis=0), x.var(axis=0)
    r = 1 / numpy.sqrt(var + 2e-5)
    x_hat = (x - mean) * r
    expected = gamma * r * (gy - gy.mean(axis=0) -
                            x_hat * (gy * x_hat).mean(axis=0))
    numpy.testing.assert_allclose(xv.grad, expected, rtol=1e-10)
    numpy.testing.assert_allclose(gv.grad, (gy * x_hat).sum(axis=0))
    numpy.testing.assert_allclose(bv.grad, gy.sum(axis=0))


def test_gamma_shape_mismatch():
    x, gamma, beta = _inputs((4, 3), (4,), numpy.float32, 15)
    with pytest.raises(type_check.InvalidType, match='BatchNormalization'):
        F.batch_normalization(x, gamma, beta)


def test_beta_shape_mismatch():
    x, gamma, _ = _inputs((4, 3), (3,), numpy.float32, 16)
    with pytest.raises(type_check.InvalidType, match='BatchNormalization'):
        F.batch_normalization(x, gamma, numpy.zeros(2, numpy.float32))


def test_dtype_mismatch_of_parameters():
    x, gamma, beta = _inputs((4, 3), (3,), numpy.float32, 17)
    with pytest.raises(type_check.InvalidType, match='BatchNormalization'):
        F.batch_normalization(x, gamma, beta.astype(numpy.float64))


def test_int_input():
    with pytest.raises(type_check.InvalidType, match='BatchNormalization'):
        F.batch_normalization(numpy.zeros((4, 3), numpy.int32),
                              numpy.ones(3, numpy.float32),
                              numpy.zeros(3, numpy.float32))


def test_x_ndim_too_small():
    with pytest.raises(type_check.InvalidType, match='BatchNormalization'):
        F.batch_normalization(numpy.zeros(3, numpy.float32),
                              numpy.ones(3, numpy.float32),
                              numpy.zeros(3, numpy.float32))


def test_axis_out_of_range():
    x, gamma, beta = _inputs((4, 3), (3,), numpy.float32, 18)
    with pytest.raises(type_check.InvalidType, match='BatchNormalization'):
        F.batch_normalization(x, gamma, beta, axis=(0, 5))


def test_running_mean_shape_mismatch():
    x, gamma, beta = _inputs((4, 3), (3,), numpy.float32, 19)
    with pytest.raises(type_check.InvalidType, match='running_mean'):
        F.batch_normalization(x, gamma, beta,
                              running_mean=numpy.zeros(4, numpy.float32))


def test_train_argument_is_rejected():
    x, gamma, beta = _inputs((4, 3), (3,), numpy.float32, 20)
    with pytest.raises(ValueError, match='train'):
        F.batch_normalization(x, gamma, beta, train=True)


def test_unknown_argument():
    x, gamma, beta = _inputs((4, 3), (3,), numpy.float32, 21)
    with pytest.raises(TypeError, match='foo'):
        F.batch_normalization(x, gamma, beta, foo=1)


# -- fixed_batch_normalization ------------------------------------------------

def _fixed_inputs(x_shape, gamma_shape, dtype, seed):
    x, gamma, beta = _inputs(x_shape, gamma_shape, dtype, seed)
    rng = numpy.random.RandomState(seed + 100)
    mean = rng.normal(size=gamma_shape).astype(dtype)
    var = rng.uniform(0.5, 2, gamma_shape).astype(dtype)
    return x, gamma, beta, mean, var


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('x_shape,gamma_shape,axis,axes', CASES)
def test_fixed_forward(dtype, x_shape, gamma_shape, axis, axes):
    x, gamma, beta, mean, var = _fixed_inputs(x_shape, gamma_shape, dtype, 0)
    y = F.fixed_batch_normalization(x, gamma, beta, mean, var, eps=1e-3,
                                    axis=axis)
    keep = _keep(x_shape, axes)
    expected = gamma.reshape(keep) * (x - mean.reshape(keep)) / numpy.sqrt(
        var.reshape(keep).astype(numpy.float64) + 1e-3) + beta.reshape(keep)
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected, **_tols(dtype))


def test_fixed_with_running_statistics_is_test_mode():
    # Test mode of a BN layer: the running statistics, not the batch's.
    x, gamma, beta = _inputs((8, 3), (3,), numpy.float64, 1)
    rm, rv = numpy.zeros(3), numpy.ones(3)
    for _ in range(3):
        F.batch_normalization(x, gamma, beta, running_mean=rm,
                              running_var=rv)
    y = F.fixed_batch_normalization(x[:2], gamma, beta, rm, rv)
    numpy.testing.assert_allclose(
        y.array, gamma * (x[:2] - rm) / numpy.sqrt(rv + 2e-5) + beta)


@pytest.mark.parametrize('x_shape,gamma_shape,axis,axes', CASES)
def test_fixed_backward(x_shape, gamma_shape, axis, axes):
    inputs = _fixed_inputs(x_shape, gamma_shape, numpy.float64, 2)
    rng = numpy.random.RandomState(3)
    gy = rng.uniform(-1, 1, x_shape)
    ggs = tuple(rng.uniform(-1, 1, a.shape) for a in inputs)

    def f(*args):
        return F.fixed_batch_normalization(*args, axis=axis)
    gradient_check.check_backward(f, inputs, gy)
    gradient_check.check_double_backward(f, inputs, gy, ggs)


@pytest.mark.parametrize('no_grads', [
    [False, True, True, True, True], [True, False, True, True, True],
    [True, True, True, False, False]])
def test_fixed_partial_gradients(no_grads):
    inputs = _fixed_inputs((4, 3), (3,), numpy.float64, 4)
    gy = numpy.random.RandomState(5).uniform(-1, 1, (4, 3))
    gradient_check.check_backward(
        F.fixed_batch_normalization, inputs, gy, no_grads=no_grads)


def test_fixed_mean_shape_mismatch():
    x, gamma, beta, mean, var = _fixed_inputs((4, 3), (3,), numpy.float32, 6)
    with pytest.raises(type_check.InvalidType,
                       match='FixedBatchNormalization'):
        F.fixed_batch_normalization(x, gamma, beta, mean[:2], var)


def test_fixed_gamma_shape_mismatch():
    x, gamma, beta, mean, var = _fixed_inputs((4, 3), (3,), numpy.float32, 7)
    with pytest.raises(type_check.InvalidType,
                       match='FixedBatchNormalization'):
        F.fixed_batch_normalization(x.T.copy(), gamma, beta, mean, var)
