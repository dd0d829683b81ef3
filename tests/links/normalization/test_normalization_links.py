import numpy
import pytest

import cpuframe
import cpuframe.links as L
from cpuframe import serializers


def _x(*shape, seed=0):
    return numpy.random.RandomState(seed).normal(2.0, 3.0, shape).astype(numpy.float32)


class TestBatchNormalization:
    def test_params_and_persistents(self):
        bn = L.BatchNormalization(3)
        assert bn.gamma.shape == (3,) and bn.beta.shape == (3,)
        assert (bn.avg_mean == 0).all() and (bn.avg_var == 1).all()
        assert [n for n, _ in bn.namedparams()] == ['/beta', '/gamma']
        assert set(bn._persistent) == {'N', 'avg_mean', 'avg_var'}

    def test_train_updates_running_stats_and_test_uses_them(self):
        bn = L.BatchNormalization(3, decay=0.5)
        x = _x(8, 3, 2, 2)
        y = bn(x).array
        mean = x.mean(axis=(0, 2, 3))
        var = x.var(axis=(0, 2, 3))
        expected = (x - mean[None, :, None, None]) / \
            numpy.sqrt(var[None, :, None, None] + 2e-5)
        numpy.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-4)
        m = x.shape[0] * 4
        numpy.testing.assert_allclose(bn.avg_mean, 0.5 * mean, rtol=1e-5)
        numpy.testing.assert_allclose(bn.avg_var, 0.5 + 0.5 * var * m / (m - 1),
                                      rtol=1e-5)
        with cpuframe.using_config('train', False):
            yt = bn(x).array
        expected_t = (x - bn.avg_mean[None, :, None, None]) / \
            numpy.sqrt(bn.avg_var[None, :, None, None] + 2e-5)
        numpy.testing.assert_allclose(yt, expected_t, rtol=1e-4, atol=1e-4)

    def test_lazy_and_finetune(self):
        bn = L.BatchNormalization()
        x = _x(4, 5)
        bn(x)
        assert bn.avg_mean.shape == (5,) and bn.gamma.shape == (5,)
        bn.start_finetuning()
        bn(x, finetune=True)
        numpy.testing.assert_allclose(bn.avg_mean, x.mean(axis=0), rtol=1e-5)
        with pytest.raises(ValueError, match='test argument is not supported'):
            bn(x, test=True)
        with pytest.raises(TypeError, match='unexpected keyword'):
            bn(x, volatile=True)

    def test_no_gamma_beta(self):
        bn = L.BatchNormalization(2, use_gamma=False, use_beta=False)
        assert list(bn.params()) == []
        y = bn(_x(6, 2)).array
        numpy.testing.assert_allclose(y.mean(axis=0), 0, atol=1e-5)

    def test_serialize_and_copy(self, tmp_path):
        bn = L.BatchNormalization(3)
        bn(_x(4, 3))
        path = tmp_path / 'bn.npz'
        serializers.save_npz(path, bn)
        other = L.BatchNormalization(3)
        serializers.load_npz(path, other)
        numpy.testing.assert_array_equal(other.avg_mean, bn.avg_mean)
        numpy.testing.assert_array_equal(other.avg_var, bn.avg_var)
        c = bn.copy('copy')
        assert c.avg_mean is not bn.avg_mean
        numpy.testing.assert_array_equal(c.avg_mean, bn.avg_mean)


def test_layer_normalization():
    ln = L.LayerNormalization()
    x = _x(4, 6)
    y = ln(x).array
    assert ln.gamma.shape == (6,)
    numpy.testing.assert_allclose(y.mean(axis=1), 0, atol=1e-5)
    numpy.testing.assert_allclose(y.std(axis=1), 1, atol=1e-3)


def test_group_normalization():
    gn = L.GroupNormalization(2, 4)
    x = _x(3, 4, 2, 2)
    y = gn(x).array
    g = y.reshape(3, 2, -1)
    numpy.testing.assert_allclose(g.mean(axis=2), 0, atol=1e-5)
    with pytest.raises(ValueError, match='GroupNormalization'):
        L.GroupNormalization(0)
