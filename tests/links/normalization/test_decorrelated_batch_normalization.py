"""L.DecorrelatedBatchNormalization: modes, running statistics, snapshots."""
import numpy
import pytest

import cpuframe
import cpuframe.functions as F
import cpuframe.links as L
from cpuframe import serializers
from cpuframe.links.normalization import (
    decorrelated_batch_normalization as module,
)


def _batch(seed, b=32, c=4):
    rng = numpy.random.RandomState(seed)
    mix = numpy.array([[1.0, 0.8, 0, 0], [0, 1.0, 0, 0],
                       [0, 0, 2.0, -1.0], [0, 0, 0, 0.5]])[:c, :c]
    return (rng.randn(b, c) @ mix.T + numpy.arange(c)).astype(numpy.float32)


def _group_cov(y, groups):
    b, c = y.shape
    C = c // groups
    return [numpy.cov(y[:, g * C:(g + 1) * C].T.astype(numpy.float64),
                      bias=True) for g in range(groups)]


def test_state_and_exports():
    dbn = L.DecorrelatedBatchNormalization(6, groups=3)
    assert L.DecorrelatedBatchNormalization is \
        module.DecorrelatedBatchNormalization
    assert list(dbn.params()) == []
    assert dbn.avg_mean.shape == (3, 2) and (dbn.avg_mean == 0).all()
    numpy.testing.assert_array_equal(dbn.avg_projection,
                                     numpy.tile(numpy.eye(2), (3, 1, 1)))
    assert dbn.avg_mean.dtype == numpy.float32 and dbn.N == 0
    assert (dbn.decay, dbn.eps, dbn.groups) == (0.9, 2e-5, 3)
    assert L.DecorrelatedBatchNormalization(
        4, groups=1, dtype=numpy.float64).avg_projection.dtype == \
        numpy.float64


def test_training_mode_whitens_and_updates_the_averages():
    dbn = L.DecorrelatedBatchNormalization(4, groups=2, decay=0.8)
    x = _batch(0)
    mean = numpy.zeros((2, 2))
    proj = numpy.tile(numpy.eye(2), (2, 1, 1))
    expected = F.decorrelated_batch_normalization(
        x.astype(numpy.float64), groups=2, running_mean=mean,
        running_projection=proj, decay=0.8)
    y = dbn(x)
    numpy.testing.assert_allclose(y.array, expected.array, rtol=1e-4,
                                  atol=1e-4)
    for cov in _group_cov(y.array, 2):
        numpy.testing.assert_allclose(cov, numpy.eye(2), atol=1e-3)
    numpy.testing.assert_allclose(dbn.avg_mean, mean, rtol=1e-5)
    numpy.testing.assert_allclose(dbn.avg_projection, proj, rtol=1e-4)


def test_test_mode_uses_the_averages():
    dbn = L.DecorrelatedBatchNormalization(4, groups=2)
    dbn.avg_mean[...] = numpy.random.RandomState(1).randn(2, 2)
    dbn.avg_projection[...] = numpy.random.RandomState(2).randn(2, 2, 2)
    x = _batch(3)
    before = (dbn.avg_mean.copy(), dbn.avg_projection.copy())
    with cpuframe.using_config('train', False):
        y = dbn(x)
    expected = F.fixed_decorrelated_batch_normalization(
        x, dbn.avg_mean, dbn.avg_projection, groups=2)
    numpy.testing.assert_allclose(y.array, expected.array, rtol=1e-6)
    numpy.testing.assert_array_equal(dbn.avg_mean, before[0])
    numpy.testing.assert_array_equal(dbn.avg_projection, before[1])


def test_finetune_averages_the_batches_and_test_mode_whitens():
    dbn = L.DecorrelatedBatchNormalization(4, groups=2)
    batches = [_batch(s, b=1000) for s in range(8)]
    for x in batches:
        dbn(x, finetune=True)
    assert dbn.N == 8
    means = [x.reshape(1000, 2, 2).mean(axis=0) for x in batches]
    numpy.testing.assert_allclose(dbn.avg_mean, numpy.mean(means, axis=0),
                                  rtol=1e-5, atol=1e-6)
    # the population statistics whiten new data of the same distribution
    # (roughly: an average of per-batch Sigma^(-1/2) overestimates the
    # population's by a few percent, and the new data's sample covariance
    # varies by about as much)
    with cpuframe.using_config('train', False):
        y = dbn(_batch(99, b=4000)).array
    numpy.testing.assert_allclose(y.mean(axis=0), 0, atol=0.06)
    for cov in _group_cov(y, 2):
        numpy.testing.assert_allclose(cov, numpy.eye(2), atol=0.1)
    dbn.start_finetuning()
    assert dbn.N == 0


def test_recomputation_leaves_the_statistics_alone():
    dbn = L.DecorrelatedBatchNormalization(4, groups=2)
    with cpuframe.using_config('in_recomputing', True):
        dbn(_batch(0), finetune=True)
    assert dbn.N == 0 and (dbn.avg_mean == 0).all()


def test_gradient_flows_through_the_link():
    dbn = L.DecorrelatedBatchNormalization(4, groups=2)
    x = cpuframe.Variable(_batch(4).astype(numpy.float64))
    y = dbn(x)
    F.sum(y * numpy.arange(4.0)).backward()
    assert x.grad.shape == (32, 4) and numpy.isfinite(x.grad).all()
    # the output is centred per channel: the gradient sums to 0 per channel
    numpy.testing.assert_allclose(x.grad.sum(axis=0), 0, atol=1e-9)


def test_serialize_round_trip(tmp_path):
    dbn = L.DecorrelatedBatchNormalization(4, groups=2)
    dbn(_batch(5))
    dbn.N = 3
    serializers.save_npz(tmp_path / 'dbn.npz', dbn)
    fresh = L.DecorrelatedBatchNormalization(4, groups=2)
    serializers.load_npz(tmp_path / 'dbn.npz', fresh)
    numpy.testing.assert_array_equal(fresh.avg_mean, dbn.avg_mean)
    numpy.testing.assert_array_equal(fresh.avg_projection, dbn.avg_projection)
    assert int(fresh.N) == 3


def test_loads_statistics_saved_before_chainer_7(tmp_path):
    old_mean = numpy.array([1.0, 2.0], numpy.float32)
    old_proj = numpy.array([[1.0, 0.5], [0.5, 2.0]], numpy.float32)
    numpy.savez(tmp_path / 'old.npz', avg_mean=old_mean,
                avg_projection=old_proj, N=numpy.array(0))
    dbn = L.DecorrelatedBatchNormalization(6, groups=3)
    with pytest.warns(UserWarning, match='old version'):
        serializers.load_npz(tmp_path / 'old.npz', dbn)
    numpy.testing.assert_array_equal(dbn.avg_mean, numpy.tile(old_mean,
                                                              (3, 1)))
    numpy.testing.assert_array_equal(dbn.avg_projection,
                                     numpy.tile(old_proj, (3, 1, 1)))


def test_fix_functions():
    a = numpy.arange(3.0)
    assert module.fix_avg_mean(a, 1).shape == (1, 3)
    b = numpy.zeros((2, 3))
    assert module.fix_avg_mean(b, 2) is b
    assert module.fix_avg_projection(numpy.eye(3), 1).shape == (1, 3, 3)
    with pytest.warns(UserWarning):
        assert module.fix_avg_projection(numpy.eye(3), 2).shape == (2, 3, 3)
    with pytest.raises(ValueError, match='fix_avg_mean'):
        module.fix_avg_mean(numpy.zeros((1, 1, 1)), 1)
    with pytest.raises(ValueError, match='fix_avg_projection'):
        module.fix_avg_projection(numpy.zeros(3), 1)


def test_errors():
    with pytest.raises(ValueError, match='DecorrelatedBatchNormalization.*'
                                         'divisible'):
        L.DecorrelatedBatchNormalization(6, groups=4)
    dbn = L.DecorrelatedBatchNormalization(4, groups=2)
    with pytest.raises(TypeError, match='unexpected keyword'):
        dbn(_batch(0), test=True)


def test_loading_statistics_of_another_shape_is_an_error(tmp_path):
    serializers.save_npz(tmp_path / 'dbn.npz',
                         L.DecorrelatedBatchNormalization(4, groups=2))
    other = L.DecorrelatedBatchNormalization(6, groups=3)
    with pytest.raises(ValueError, match=r'avg_mean of shape \(2, 2\)'):
        serializers.load_npz(tmp_path / 'dbn.npz', other)
    assert (other.avg_mean == 0).all()
