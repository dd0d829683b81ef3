import numpy
import pytest

from cpuframe import iterators, serializers


def test_shuffle_order_sampler_with_random_state():
    sampler = iterators.ShuffleOrderSampler(numpy.random.RandomState(0))
    assert isinstance(sampler, iterators.OrderSampler)
    r = numpy.random.RandomState(0)
    assert sampler(numpy.arange(6), 0).tolist() == r.permutation(6).tolist()
    assert sampler(numpy.arange(6), 3).tolist() == r.permutation(6).tolist()


def test_shuffle_order_sampler_default_uses_global_generator():
    state = numpy.random.get_state()
    try:
        numpy.random.seed(11)
        got = iterators.ShuffleOrderSampler()(numpy.arange(8), 0)
        numpy.random.seed(11)
        assert got.tolist() == numpy.random.permutation(8).tolist()
    finally:
        numpy.random.set_state(state)


def test_bad_random_state():
    with pytest.raises(TypeError, match='ShuffleOrderSampler: random_state'):
        iterators.ShuffleOrderSampler(42)


def test_order_sampler_base_is_abstract():
    with pytest.raises(NotImplementedError):
        iterators.OrderSampler()(numpy.arange(2), 0)


def test_sampler_state_roundtrip(tmp_path):
    a = iterators.ShuffleOrderSampler(numpy.random.RandomState(5))
    a(numpy.arange(10), 0)
    serializers.save_npz(tmp_path / 's.npz', a)
    b = iterators.ShuffleOrderSampler(numpy.random.RandomState(0))
    serializers.load_npz(tmp_path / 's.npz', b)
    assert b(numpy.arange(10), 0).tolist() == a(numpy.arange(10), 0).tolist()


def test_global_generator_state_is_not_saved(tmp_path):
    sampler = iterators.ShuffleOrderSampler()
    serializers.save_npz(tmp_path / 's.npz', sampler)
    with numpy.load(tmp_path / 's.npz') as f:
        assert f.files == []
