import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import backend, gradient_check

DTYPES = [numpy.float32, numpy.float64]
CPU_SPECS = ['@numpy', -1, '-1', numpy, backend.cpu_device]


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('dst', CPU_SPECS, ids=repr)
@pytest.mark.parametrize('shape', [(3, 2), (), (0,)])
def test_forward_cpu(dtype, dst, shape):
    x = numpy.random.RandomState(0).uniform(-1, 1, shape).astype(dtype)
    y = F.copy(cpuframe.Variable(x), dst)
    assert isinstance(y.array, numpy.ndarray)
    assert y.device == backend.cpu_device
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, x)
    assert not numpy.shares_memory(y.array, x)


@pytest.mark.parametrize('dtype', DTYPES)
def test_backward_cpu(dtype):
    rng = numpy.random.RandomState(1)
    x = rng.uniform(-1, 1, (3, 2)).astype(dtype)
    gy = rng.uniform(-1, 1, (3, 2)).astype(dtype)
    gradient_check.check_backward(lambda x: F.copy(x, '@numpy'), x, gy)


def test_double_backward_cpu():
    rng = numpy.random.RandomState(2)
    x = rng.uniform(-1, 1, (3, 2))
    gy = rng.uniform(-1, 1, (3, 2))
    ggx = rng.uniform(-1, 1, (3, 2))
    gradient_check.check_double_backward(
        lambda x: F.copy(x, -1) ** 2, x, gy, ggx)


def test_gradient_lands_on_source_device():
    x = cpuframe.Variable(numpy.ones(3, numpy.float32))
    y = F.copy(x, '@numpy')
    F.sum(y * 3.0).backward()
    assert isinstance(x.grad, numpy.ndarray)
    numpy.testing.assert_array_equal(x.grad, numpy.full(3, 3, numpy.float32))


@pytest.mark.parametrize('dst', ['@nowhere', 'cuda:0', 1.5])
def test_invalid_device(dst):
    with pytest.raises(ValueError, match='get_device'):
        F.copy(numpy.zeros(2, numpy.float32), dst)


@pytest.mark.skipif(not cpuframe.backends.intel64.is_ideep_available(),
                    reason='needs the oneDNN native module')
def test_to_intel64_and_back():
    x = cpuframe.Variable(numpy.arange(4, dtype=numpy.float32))
    y = F.copy(x, '@intel64')
    # Until the native tensor lands, the Intel64 device holds NumPy arrays,
    # so only the values can be checked here.
    numpy.testing.assert_array_equal(backend.cpu_device.send(y.array),
                                     x.array)
    F.sum(F.copy(y, '@numpy') * 2.0).backward()
    numpy.testing.assert_array_equal(x.grad, numpy.full(4, 2, numpy.float32))


@pytest.mark.gpu
@pytest.mark.skipif(not cpuframe.cuda.available, reason='needs CuPy and a GPU')
def test_to_gpu_and_back():
    x = cpuframe.Variable(numpy.arange(4, dtype=numpy.float32))
    y = F.copy(x, '@cupy:0')
    assert cpuframe.cuda.is_cupy_array(y.array)
    F.sum(F.copy(y, -1) * 2.0).backward()
    assert isinstance(x.grad, numpy.ndarray)
    numpy.testing.assert_array_equal(x.grad, numpy.full(4, 2, numpy.float32))
    z = F.copy(x, 0)
    z.grad = cpuframe.cuda.cupy.ones(4, numpy.float32)
    z.backward()
    assert isinstance(x.grad, numpy.ndarray)
