"""CuPy glue: the GPU device and Chainer's familiar ``cuda`` helpers."""
import contextlib

import numpy

from cpuframe.backends._base import Device
from cpuframe.backends._cpu import _to_numpy

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
else:
    class ndarray:
        """Stands for ``cupy.ndarray`` without CuPy: nothing is an instance.

        As in Chainer, ``isinstance(x, cuda.ndarray)`` is then False rather
        than a ``TypeError``; making one raises the reason CUDA is unusable.
        """

        def __new__(cls, *args, **kwargs):
            check_cuda_available()


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
    return _to_numpy(array)


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
