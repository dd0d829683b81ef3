"""ChainerMN's ``communicators._memory_utility``: arrays as MPI buffers and
the parameter lists the communicators reduce.

The device buffers (``DeviceMemory``, ``HostPinnedMemory``) exist for
ChainerMN's CUDA communicators; without CuPy they raise ChainerMN's error.
"""
import ctypes

import numpy

from cpuframe.backends import cuda


def _cupy():
    return cuda.cupy if cuda.available else None


def get_device_memory_pointer(array):
    """A buffer over ``array``'s memory (made contiguous first): the NumPy
    array itself, or a ctypes byte array at a CuPy array's device
    pointer."""
    if isinstance(array, numpy.ndarray):
        return numpy.ascontiguousarray(array)
    cp = _cupy()
    if cp is not None and isinstance(array, cp.ndarray):
        array = cp.ascontiguousarray(array)
        return (ctypes.c_ubyte * array.nbytes).from_address(array.data.ptr)
    raise ValueError('{} is from an unsupported array module'.format(
        type(array)))


def array_to_buffer_object(array, mpi_dtype=None):
    """An ``mpi4py`` buffer for ``array``: a NumPy array gives itself
    (contiguous; a copy when it was not, so receive into contiguous arrays
    only), a CuPy array ``(bytes at its device pointer, mpi_dtype)``
    (``MPI.FLOAT`` by default)."""
    if isinstance(array, numpy.ndarray):
        return get_device_memory_pointer(array)
    if mpi_dtype is None:
        from cpuframe.mn import _mpi
        mpi_dtype = _mpi.get().FLOAT
    return get_device_memory_pointer(array), mpi_dtype


def extract_params_set_data(model):
    """``model``'s parameters with data, in name order."""
    return [param for _, param in sorted(model.namedparams())
            if param.data is not None]


def extract_params_set_grad(model, zero_fill):
    """``model``'s parameters with data and, unless ``zero_fill``, a
    gradient, in name order."""
    return [param for _, param in sorted(model.namedparams())
            if param.data is not None and
            (zero_fill or param.grad is not None)]


def count_grad_elements(params, zero_fill):
    """The number of gradient elements of ``params`` (their data's size
    when ``zero_fill``: missing gradients count as zeros)."""
    if zero_fill:
        return sum(param.data.size for param in params)
    return sum(param.grad.size for param in params)


class _GrowingBuffer:
    """A buffer that is reallocated only when asked to grow; needs CuPy
    (ChainerMN's error names the class otherwise)."""

    def __init__(self):
        if _cupy() is None:
            raise RuntimeError('{} cannot be used: Cupy is not '
                               'available.'.format(type(self).__name__))
        self.size = 0
        self.memory = None

    def _alloc(self, size):
        raise NotImplementedError

    def assign(self, size):
        if size > self.size:
            self.size = size
            self.memory = self._alloc(size)


def _check_dtype(dtype):
    if dtype is None:
        raise TypeError('dtype must be an instance of numpy.dtype class')


class DeviceMemory(_GrowingBuffer):
    """A growable CUDA buffer (ChainerMN's)."""

    def _alloc(self, size):
        return _cupy().cuda.alloc(size)

    def ptr(self):
        return self.memory.ptr

    def array(self, shape, offset=0, dtype=numpy.float32):
        _check_dtype(dtype)
        return _cupy().ndarray(shape, memptr=self.memory + offset,
                               dtype=dtype)


class HostPinnedMemory(_GrowingBuffer):
    """A growable pinned host buffer (ChainerMN's)."""

    def _alloc(self, size):
        return _cupy().cuda.alloc_pinned_memory(size)

    def ptr(self, offset=0):
        return ctypes.c_void_p(self.memory.ptr + offset)

    def array(self, count, offset=0, dtype=numpy.float32):
        _check_dtype(dtype)
        return numpy.frombuffer(self.memory, dtype, count, offset)
