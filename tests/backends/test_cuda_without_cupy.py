"""chainer.backends.cuda names that Chainer code calls on CPU-only hosts."""
import numpy
import pytest

from cpuframe.backends import cuda

pytestmark = pytest.mark.skipif(cuda.available, reason='a CUDA host')


def test_fuse_returns_the_plain_function():
    def f(x, y):
        return x * y + 1

    assert cuda.fuse(f) is f
    g = cuda.fuse(kernel_name='g')(f)
    numpy.testing.assert_array_equal(g(numpy.arange(3), 2), [1, 3, 5])


def test_memoize_is_a_passthrough():
    calls = []

    @cuda.memoize(for_each_device=True)
    def h(x):
        calls.append(x)
        return x + 1

    assert h(1) == 2 and h(1) == 2
    assert calls == [1, 1]
    assert h.__name__ == 'h'
    cuda.clear_memo()


def test_kernels_name_cupy():
    with pytest.raises(RuntimeError, match='CuPy'):
        cuda.elementwise('T x', 'T y', 'y = x', 'copy')
    with pytest.raises(RuntimeError, match='CuPy'):
        cuda.reduce('T x', 'T y', 'x', 'a + b', 'y = a', '0', 'sum')
    with pytest.raises(RuntimeError, match='CuPy'):
        cuda.raw('extern "C" __global__ void k() {}', 'k')


def test_cudnn_is_off():
    assert cuda.cudnn_enabled is False
    assert cuda.should_use_cudnn('>=auto') is False
    assert cuda.get_max_workspace_size() == 0
    cuda.set_max_workspace_size(1 << 20)
    assert cuda.get_max_workspace_size() == 0
    with pytest.raises(RuntimeError, match='cuDNN is not enabled'):
        cuda.get_cudnn_dropout_states()


def test_devices_and_pools_without_cupy():
    assert cuda.get_device_from_id(None) is cuda.DummyDevice
    assert cuda.get_device_from_array(numpy.zeros(1)) is cuda.DummyDevice
    with pytest.warns(DeprecationWarning):
        assert cuda.get_device(numpy.zeros(1)) is cuda.DummyDevice
    if cuda.cupy is None:
        assert cuda.memory_pool is None
        assert cuda.pinned_memory_pool is None
        # isinstance checks against cuda.ndarray work and are False.
        assert not isinstance(numpy.zeros(1), cuda.ndarray)
