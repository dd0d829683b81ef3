import numpy
import pytest

import cpuframe
import cpuframe.links as L
from cpuframe import serializers


def _x(*shape, seed=0):
    return numpy.random.RandomState(seed).normal(2.0, 3.0, shape).astype(
        numpy.float32)


def _renorm(x, gamma, beta, rm, rv, rmax, dmax, eps=2e-5):
    axes = (0,) + tuple(range(2, x.ndim))
    keep = (1, -1) + (1,) * (x.ndim - 2)
    x = x.astype(numpy.float64)
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    sigma = numpy.sqrt(var + eps)
    run_sigma = numpy.sqrt(rv.reshape(keep) + eps)
    r = numpy.clip(sigma / run_sigma, 1 / rmax, rmax)
    d = numpy.clip((mean - rm.reshape(keep)) / run_sigma, -dmax, dmax)
    y = gamma.reshape(keep) * ((x - mean) / sigma * r + d) + beta.reshape(keep)
    return y, mean.ravel(), var.ravel()


def test_is_batch_normalization_with_same_params_and_persistents():
    brn = L.BatchRenormalization(3, rmax=3., dmax=5.)
    assert isinstance(brn, L.BatchNormalization)
    assert brn.rmax == 3. and brn.dmax == 5.
    assert brn.gamma.shape == (3,) and brn.beta.shape == (3,)
    assert (brn.avg_mean == 0).all() and (brn.avg_var == 1).all()
    assert [n for n, _ in brn.namedparams()] == ['/beta', '/gamma']
    assert set(brn._persistent) == {'N', 'avg_mean', 'avg_var'}
    assert brn.N == 0


@pytest.mark.parametrize('shape', [(8, 3), (6, 3, 2, 2)])
def test_train_and_test(shape):
    brn = L.BatchRenormalization(3, rmax=1.3, dmax=0.2, decay=0.5)
    rng = numpy.random.RandomState(1)
    brn.gamma.array[...] = rng.uniform(0.5, 1.5, 3)
    brn.beta.array[...] = rng.uniform(-1, 1, 3)
    brn.avg_mean[...] = rng.normal(size=3)
    brn.avg_var[...] = rng.uniform(0.5, 3, 3)
    rm0, rv0 = brn.avg_mean.copy(), brn.avg_var.copy()
    x = _x(*shape)
    y = brn(x)
    expected, mean, var = _renorm(x, brn.gamma.array, brn.beta.array, rm0,
                                  rv0, 1.3, 0.2)
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-4, atol=1e-4)
    m = x.size // 3
    numpy.testing.assert_allclose(brn.avg_mean, 0.5 * rm0 + 0.5 * mean,
                                  rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(
        brn.avg_var, 0.5 * rv0 + 0.5 * var * m / (m - 1), rtol=1e-5)
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert brn.gamma.grad.shape == (3,)
    with cpuframe.using_config('train', False):
        yt = brn(x).array
    keep = (1, -1) + (1,) * (x.ndim - 2)
    expected_t = brn.gamma.array.reshape(keep) * \
        (x - brn.avg_mean.reshape(keep)) / \
        numpy.sqrt(brn.avg_var.reshape(keep) + 2e-5) + \
        brn.beta.array.reshape(keep)
    numpy.testing.assert_allclose(yt, expected_t, rtol=1e-4, atol=1e-4)


def test_no_update_while_recomputing():
    brn = L.BatchRenormalization(4, rmax=2., dmax=1.)
    x = _x(5, 4)
    brn(x)
    mean, var = brn.avg_mean.copy(), brn.avg_var.copy()
    with cpuframe.using_config('in_recomputing', True):
        brn(x, finetune=True)
    numpy.testing.assert_array_equal(brn.avg_mean, mean)
    numpy.testing.assert_array_equal(brn.avg_var, var)
    assert brn.N == 0


def test_initial_avg_statistics_and_positional_order():
    # Chainer 7's order: size, rmax, dmax, decay, eps, dtype, use_gamma,
    # use_beta, initial_gamma, initial_beta, initial_avg_mean,
    # initial_avg_var.
    brn = L.BatchRenormalization(2, 2., 1., 0.5, 1e-3, numpy.float64, True,
                                 True, 2.0, 0.5, 3.0, 4.0)
    assert brn.rmax == 2. and brn.dmax == 1. and brn.decay == 0.5
    assert brn.eps == 1e-3 and brn.avg_mean.dtype == numpy.float64
    assert (brn.gamma.array == 2).all() and (brn.beta.array == 0.5).all()
    assert (brn.avg_mean == 3).all() and (brn.avg_var == 4).all()
    assert brn.r is None and brn.d is None


def test_finetune():
    brn = L.BatchRenormalization(4, rmax=2., dmax=1.)
    x = _x(5, 4)
    brn.start_finetuning()
    brn(x, finetune=True)
    assert brn.N == 1
    # decay 1 - 1/N = 0 on the first batch: the batch's statistics.
    numpy.testing.assert_allclose(brn.avg_mean, x.mean(axis=0), rtol=1e-5)


def test_lazy_size_and_no_gamma_beta():
    brn = L.BatchRenormalization(None, use_gamma=False, use_beta=False)
    assert list(brn.params()) == []
    y = brn(_x(6, 2)).array
    assert brn.avg_mean.shape == (2,)
    numpy.testing.assert_allclose(y.mean(axis=0), 0, atol=1e-5)


def test_serialize(tmp_path):
    brn = L.BatchRenormalization(3, rmax=2., dmax=1.)
    brn(_x(4, 3))
    path = str(tmp_path / 'brn.npz')
    serializers.save_npz(path, brn)
    other = L.BatchRenormalization(3, rmax=2., dmax=1.)
    serializers.load_npz(path, other)
    numpy.testing.assert_array_equal(other.avg_mean, brn.avg_mean)
    numpy.testing.assert_array_equal(other.avg_var, brn.avg_var)
    # Also interchangeable with a BatchNormalization snapshot.
    bn = L.BatchNormalization(3)
    serializers.load_npz(path, bn)
    numpy.testing.assert_array_equal(bn.avg_var, brn.avg_var)


def test_bad_input():
    brn = L.BatchRenormalization(3)
    with pytest.raises(cpuframe.utils.type_check.InvalidType,
                       match='BatchRenormalization'):
        brn(_x(4, 5))
