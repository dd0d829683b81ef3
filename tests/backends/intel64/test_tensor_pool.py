"""The pool of freed Tensor buffers: reuse without raising peak memory."""
import numpy
import pytest

from cpuframe.backends import intel64

pytestmark = pytest.mark.skipif(not intel64.is_ideep_available(),
                                reason='oneDNN native module not available')


@pytest.fixture
def nat():
    nat = intel64.native()
    limit = nat.tensor_pool_stats()['limit_bytes']
    nat.set_tensor_pool_limit(256 << 20)
    nat.release_tensor_pool()
    yield nat
    nat.set_tensor_pool_limit(limit)
    nat.release_tensor_pool()


def _tensor(n_floats, value=1.0):
    return intel64.from_numpy(numpy.full(n_floats, value, numpy.float32))


def test_live_bytes_are_counted(nat):
    before = nat.tensor_pool_stats()['live_bytes']
    nat.reset_tensor_peak_bytes()
    t = _tensor(1 << 20)
    stats = nat.tensor_pool_stats()
    assert stats['live_bytes'] >= before + (4 << 20)
    assert stats['peak_live_bytes'] >= stats['live_bytes']
    del t
    stats = nat.tensor_pool_stats()
    assert stats['live_bytes'] == before
    assert stats['peak_live_bytes'] >= before + (4 << 20)
    nat.reset_tensor_peak_bytes()
    assert nat.tensor_pool_stats()['peak_live_bytes'] == before


def test_same_size_reuses_the_buffer(nat):
    t = _tensor(1 << 20)
    ptr = t.data_ptr
    del t
    assert nat.tensor_pool_stats()['cached_buffers'] == 1
    t = _tensor(1 << 20, 2.0)
    assert t.data_ptr == ptr
    numpy.testing.assert_array_equal(numpy.asarray(t), 2.0)


def test_slightly_larger_buffer_is_reused(nat):
    t = _tensor(1 << 20)
    ptr = t.data_ptr
    del t
    t = _tensor((1 << 20) - (1 << 16), 3.0)   # 1/16 smaller: fits
    assert t.data_ptr == ptr
    numpy.testing.assert_array_equal(numpy.asarray(t), 3.0)


def test_cached_buffers_never_raise_the_high_water_mark(nat):
    # Huge buffers (>= 4 MiB): peak use is one 4 MiB buffer; after it is
    # freed, a 6 MiB request cannot use it, and keeping it cached would put
    # 10 MiB in memory: it is let go before the fresh buffer is mapped.
    # Smaller buffers stay cached.
    small = _tensor(1 << 18)
    t = _tensor(1 << 20)
    del t, small
    assert nat.tensor_pool_stats()['cached_bytes'] == (4 << 20) + (1 << 20)
    u = _tensor(3 << 19, 4.0)
    assert nat.tensor_pool_stats()['cached_bytes'] == 1 << 20
    numpy.testing.assert_array_equal(numpy.asarray(u), 4.0)
    del u
    # Below the high-water mark both huge sizes may stay cached.
    a = _tensor(1 << 20)
    b = _tensor(3 << 19)
    del a, b
    assert nat.tensor_pool_stats()['cached_buffers'] == 3


def test_disabled_pool_frees_at_once(nat):
    nat.set_tensor_pool_limit(0)
    t = _tensor(1 << 20)
    del t
    assert nat.tensor_pool_stats()['cached_bytes'] == 0


def test_peak_bound_can_be_switched_off(nat):
    assert nat.tensor_pool_stats()['peak_bound'] is True
    nat.set_tensor_pool_peak_bound(False)
    try:
        t = _tensor(1 << 20)
        del t
        u = _tensor(3 << 19, 5.0)   # no eviction: the 4 MiB buffer stays
        assert nat.tensor_pool_stats()['cached_bytes'] >= 4 << 20
        numpy.testing.assert_array_equal(numpy.asarray(u), 5.0)
        del u
        v = _tensor(3 << 18, 6.0)   # 3 MiB may use the cached 4 MiB buffer
        assert nat.tensor_pool_stats()['hits'] > 0
        numpy.testing.assert_array_equal(numpy.asarray(v), 6.0)
    finally:
        nat.set_tensor_pool_peak_bound(True)
