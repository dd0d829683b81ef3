"""CuPy glue: the GPU device and Chainer's familiar ``cuda`` helpers."""
import contextlib
import functools
import warnings

import numpy

from cpuframe.backends._base import Device
from cpuframe.backends._cpu import to_numpy

try:
    import cupy
    import cupy.cuda  # noqa: F401
    _import_error = None
except Exception as e:  # noqa: BLE001 - any failure means "no CuPy"
    cupy = None
    _import_error = e


def _count_devices():
    if cupy is None:
        return 0
    try:
        return cupy.cuda.runtime.getDeviceCount()
    except Exception:  # noqa: BLE001 - a driver without GPUs
        return 0


available = _count_devices() > 0
cudnn_enabled = False
if cupy is not None:
    ndarray = cupy.ndarray
    # Chainer's backward-compatible handles on CuPy's default pools.
    memory_pool = cupy.get_default_memory_pool()
    pinned_memory_pool = cupy.get_default_pinned_memory_pool()
else:
    class ndarray:
        """Stands for ``cupy.ndarray`` without CuPy: nothing is an instance.

        As in Chainer, ``isinstance(x, cuda.ndarray)`` is then False rather
        than a ``TypeError``; making one raises the reason CUDA is unusable.
        """

        def __new__(cls, *args, **kwargs):
            check_cuda_available()

    # Chainer leaves these undefined without CuPy; None says "no pool".
    memory_pool = None
    pinned_memory_pool = None

# cpuframe never enables cuDNN (cudnn_enabled is False): no cuDNN modules.
cudnn = None
libcudnn = None


def check_cuda_available():
    """Raise ``RuntimeError`` naming the reason when CUDA is unusable."""
    if cupy is None:
        raise RuntimeError(
            'CUDA environment is not correctly set up: CuPy could not be '
            'imported ({})'.format(_import_error))
    if not available:
        raise RuntimeError('CUDA environment is not correctly set up: '
                           'CuPy found no GPU')


def is_cupy_array(x):
    return cupy is not None and isinstance(x, cupy.ndarray)


def get_array_module(*args):
    """``cupy`` if any argument is a CuPy array (or holds one), else ``numpy``."""
    if cupy is not None:
        for a in args:
            if hasattr(a, 'array') and not isinstance(a, numpy.ndarray):
                a = a.array
            if isinstance(a, cupy.ndarray):
                return cupy
    return numpy


class DummyDeviceType:
    """Stands in for a CUDA device on the CPU; a no-op context."""

    id = -1

    def __int__(self):
        return -1

    def __enter__(self):
        return self

    def __exit__(self, *args):
        pass

    def use(self):
        pass

    def synchronize(self):
        pass

    def __eq__(self, other):
        return isinstance(other, DummyDeviceType)

    def __hash__(self):
        return hash(-1)


DummyDevice = DummyDeviceType()


def get_device_from_id(device_id):
    """The CuPy device with this id, or ``DummyDevice`` for ``None``/negative."""
    if device_id is None or device_id < 0:
        return DummyDevice
    check_cuda_available()
    return cupy.cuda.Device(device_id)


def get_device_from_array(*arrays):
    """The CuPy device of the first CuPy array, else ``DummyDevice``."""
    for a in arrays:
        if hasattr(a, 'array') and not isinstance(a, numpy.ndarray):
            a = a.array
        if is_cupy_array(a):
            return a.device
    return DummyDevice


def to_gpu(array, device=None, stream=None):
    """Copy an array (or nested list/tuple of arrays) to a GPU."""
    if array is None:
        return None
    if isinstance(array, (list, tuple)):
        return type(array)(to_gpu(a, device) for a in array)
    check_cuda_available()
    if isinstance(device, GpuDevice):
        device = device.device
    dev = device if hasattr(device, 'use') else get_device_from_id(
        0 if device is None else int(device))
    with dev:
        return cupy.asarray(array)


def to_cpu(array, stream=None):
    """Copy an array (or nested list/tuple of arrays) to host NumPy."""
    if array is None:
        return None
    if isinstance(array, (list, tuple)):
        return type(array)(to_cpu(a) for a in array)
    if numpy.isscalar(array):
        return numpy.asarray(array)
    return to_numpy(array)


def copy(array, out=None, out_device=None, stream=None):
    """Copy a GPU array, optionally into ``out`` or onto ``out_device``."""
    check_cuda_available()
    if out is None:
        with get_device_from_id(out_device) if out_device is not None \
                else array.device:
            return array.copy()
    out[...] = array
    return out


@contextlib.contextmanager
def using_device_id(device_id):
    with get_device_from_id(device_id):
        yield


class GpuDevice(Device):
    """A CUDA device through CuPy (``'@cupy:N'``)."""

    def __init__(self, device):
        check_cuda_available()
        if isinstance(device, int):
            device = cupy.cuda.Device(device)
        self.device = device
        self.xp = cupy
        self.name = '@cupy:{}'.format(device.id)
        self.supported_array_types = (cupy.ndarray,)

    @staticmethod
    def from_device_id(device_id):
        return GpuDevice(int(device_id))

    @staticmethod
    def from_array(array):
        return GpuDevice(array.device)

    def is_array_supported(self, array):
        return isinstance(array, cupy.ndarray) and \
            array.device.id == self.device.id

    def create_context(self):
        return self.device

    def use(self):
        self.device.use()

    def send_array(self, array):
        if isinstance(array, cupy.ndarray) and \
                array.device.id == self.device.id:
            return array
        with self.device:
            return cupy.asarray(array)


def get_device(*args):
    """The CUDA device of the first int, CuPy array or device in ``args``,
    else ``DummyDevice`` (deprecated in Chainer: use get_device_from_id or
    get_device_from_array)."""
    warnings.warn('get_device is deprecated. Please use get_device_from_id or'
                  ' get_device_from_array instead.', DeprecationWarning,
                  stacklevel=2)
    for arg in args:
        if isinstance(arg, (int, numpy.integer)) and \
                not isinstance(arg, bool):
            return get_device_from_id(int(arg))
        if is_cupy_array(arg):
            return arg.device
        if cupy is not None and isinstance(arg, cupy.cuda.Device):
            return arg
    return DummyDevice


# -- kernels and memoization ------------------------------------------------

def memoize(for_each_device=False):
    """``cupy.memoize`` with CUDA; without it a pass-through decorator (it
    memoizes nothing)."""
    if available:
        return cupy.memoize(for_each_device)

    def decorator(f):
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            return f(*args, **kwargs)
        return wrapper
    return decorator


def clear_memo():
    """Clear what :func:`memoize` cached (nothing without CUDA)."""
    if available:
        cupy.clear_memo()


@memoize()
def elementwise(in_params, out_params, operation, name, **kwargs):
    """A ``cupy.ElementwiseKernel`` (cached); RuntimeError without CuPy."""
    check_cuda_available()
    return cupy.ElementwiseKernel(in_params, out_params, operation, name,
                                  **kwargs)


@memoize()
def reduce(in_params, out_params, map_expr, reduce_expr, post_map_expr,
           identity, name, **kwargs):
    """A ``cupy.ReductionKernel`` (cached); RuntimeError without CuPy."""
    check_cuda_available()
    return cupy.ReductionKernel(in_params, out_params, map_expr, reduce_expr,
                                post_map_expr, identity, name, **kwargs)


@memoize()
def raw(code, name, *args, **kwargs):
    """A ``cupy.RawKernel`` (cached); RuntimeError without CuPy."""
    check_cuda_available()
    return cupy.RawKernel(code, name, *args, **kwargs)


def fuse(*args, **kwargs):
    """``cupy.fuse`` with CUDA; otherwise the function itself, run on
    NumPy (``@fuse`` and ``@fuse(...)`` both work)."""
    if available:
        return cupy.fuse(*args, **kwargs)
    if len(args) == 1 and not kwargs and callable(args[0]):
        return args[0]
    return lambda f: f


# -- cuDNN ------------------------------------------------------------------

_SHOULD_USE_CUDNN = {
    '==always': {'always': True, 'auto': False, 'never': False},
    '>=auto': {'always': True, 'auto': True, 'never': False},
}
_TENSOR_CORE_FLAG = {'always': True, 'auto': None, 'never': False}


def should_use_cudnn(level, lowest_version=0):
    """Whether to use cuDNN at ``level`` ('==always' or '>=auto'): always
    False in cpuframe (no cuDNN), after Chainer's argument checks."""
    if level not in _SHOULD_USE_CUDNN:
        raise ValueError('invalid cuDNN use level: %s '
                         '(must be either of "==always" or ">=auto")' %
                         repr(level))
    from cpuframe.configuration import config
    if config.use_cudnn not in _SHOULD_USE_CUDNN[level]:
        raise ValueError('invalid use_cudnn configuration: %s '
                         '(must be either of "always", "auto", or "never")' %
                         repr(config.use_cudnn))
    return cudnn_enabled and _SHOULD_USE_CUDNN[level][config.use_cudnn]


def should_use_cudnn_tensor_core(dtype):
    """Whether cuDNN should use Tensor Cores for ``dtype``, from
    ``config.use_cudnn_tensor_core`` ('auto': only float16 with cuDNN)."""
    from cpuframe.configuration import config
    flag = config.use_cudnn_tensor_core
    if flag not in _TENSOR_CORE_FLAG:
        raise ValueError('invalid use_cudnn_tensor_core configuration: %s '
                         '(must be either of "always", "auto", or "never")' %
                         repr(flag))
    use = _TENSOR_CORE_FLAG[flag]
    if use is None:
        use = cudnn_enabled and numpy.dtype(dtype) == numpy.float16
    return use


def get_cudnn_dropout_states():
    """cuDNN's dropout states: RuntimeError, cuDNN is never enabled."""
    if not cudnn_enabled:
        raise RuntimeError('cuDNN is not enabled.')


def get_cudnn_dropout_states_core(thread_id):
    if not cudnn_enabled:
        raise RuntimeError('cuDNN is not enabled.')


_max_workspace_size = 8 * 1024 * 1024


def get_max_workspace_size():
    """The cuDNN workspace size: 0 while cuDNN is disabled, as in Chainer."""
    if cudnn_enabled:
        return _max_workspace_size
    return 0


def set_max_workspace_size(size):
    """Set the cuDNN workspace size (ignored while cuDNN is disabled)."""
    global _max_workspace_size
    if cudnn_enabled:
        _max_workspace_size = size
