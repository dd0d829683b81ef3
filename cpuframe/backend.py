"""Devices and array modules, as in ``chainer.backend``.

Device specifiers follow Chainer: ``'@numpy'``, ``-1`` or ``'-1'`` for the
NumPy CPU device, ``'@intel64'`` for oneDNN, ``'@cupy:N'`` or an integer
``N >= 0`` for a GPU, a ``Device`` object, or the ``numpy``/``cupy`` module.
"""
import contextlib
import re

import numpy

from cpuframe.backends import cuda, intel64
from cpuframe.backends._base import Device
from cpuframe.backends._chainerx import ChainerxDevice
from cpuframe.backends._cpu import CpuDevice
from cpuframe.backends.cuda import GpuDevice
from cpuframe.backends.intel64 import Intel64Device

__all__ = [
    'Device', 'CpuDevice', 'Intel64Device', 'GpuDevice', 'ChainerxDevice',
    'DeviceResident',
    'get_device', 'get_device_from_array', 'get_array_module',
    'using_device', 'copyto', 'is_array', 'cpu_device',
]

cpu_device = CpuDevice()
_CUPY_SPEC = re.compile(r'^@cupy:(\d+)$')


def get_device(device_spec):
    """Return the ``Device`` that ``device_spec`` names.

    Raises ``ValueError`` for a specifier that names no device, and
    ``RuntimeError`` when the named backend is not available here.
    """
    if isinstance(device_spec, Device):
        return device_spec
    if isinstance(device_spec, cuda.DummyDeviceType):
        return cpu_device
    if device_spec is numpy:
        return cpu_device
    if cuda.cupy is not None and device_spec is cuda.cupy:
        return GpuDevice(cuda.cupy.cuda.Device())
    if isinstance(device_spec, (int, numpy.integer)) and \
            not isinstance(device_spec, bool):
        if device_spec < 0:
            return cpu_device
        return GpuDevice.from_device_id(int(device_spec))
    if isinstance(device_spec, str):
        spec = device_spec.strip()
        if spec in ('@numpy', '-1'):
            return cpu_device
        if spec == '@intel64':
            return Intel64Device()
        match = _CUPY_SPEC.match(spec)
        if match:
            return GpuDevice.from_device_id(int(match.group(1)))
        if spec.isdigit():
            return GpuDevice.from_device_id(int(spec))
        if spec.startswith('native') or spec.startswith('cuda'):
            raise ValueError(
                'get_device: ChainerX devices are not supported by cpuframe, '
                'got {!r}; use \'@numpy\', \'@intel64\' or \'@cupy:N\''.format(
                    device_spec))
    if cuda.cupy is not None and isinstance(device_spec, cuda.cupy.cuda.Device):
        return GpuDevice(device_spec)
    raise ValueError(
        "get_device: expected a device specifier ('@numpy', -1, '@intel64', "
        "'@cupy:N', N >= 0 or a Device), got {!r}".format(device_spec))


def is_array(x):
    """True for arrays any device of this process can hold."""
    return isinstance(x, numpy.ndarray) or cuda.is_cupy_array(x) or \
        intel64.is_native_array(x)


def get_array_module(*args):
    """``cupy`` when any argument (array or Variable) is on a GPU, else ``numpy``."""
    if cuda.cupy is None:   # (no CuPy in this process: every op asks this)
        return numpy
    return cuda.get_array_module(*args)


def get_device_from_array(array):
    """The device an array (or a Variable's array) lives on."""
    if type(array) is numpy.ndarray:  # the common case, first
        return cpu_device
    if hasattr(array, 'array') and not isinstance(array, numpy.ndarray):
        array = array.array
    if cuda.is_cupy_array(array):
        return GpuDevice.from_array(array)
    if intel64.is_native_array(array):
        return _intel64_device()
    return cpu_device


_INTEL64_DEVICE = []


def _intel64_device():
    # One Intel64Device for the arrays' answers (devices compare by name
    # and hold no state; making one checks the native module each time).
    if not _INTEL64_DEVICE:
        _INTEL64_DEVICE.append(Intel64Device())
    return _INTEL64_DEVICE[0]


@contextlib.contextmanager
def using_device(device_spec):
    """Make a device current inside a ``with`` block."""
    device = device_spec if device_spec is cpu_device else \
        get_device(device_spec)
    with device.create_context():
        yield device


def copyto(dst, src):
    """Copy ``src`` into ``dst`` across devices (``dst[...] = src``).

    An mdarray ``dst`` keeps its layout: ``src`` is reordered into it.
    """
    if cuda.is_cupy_array(dst):
        src = cuda.to_gpu(src, dst.device) if not cuda.is_cupy_array(src) \
            else src
        with dst.device:
            cuda.cupy.copyto(dst, src)
    elif intel64.is_native_array(dst):
        numpy.copyto(dst, cuda.to_cpu(src) if cuda.is_cupy_array(src) else src)
    else:
        numpy.copyto(dst, intel64.to_numpy(cuda.to_cpu(src)))


class DeviceResident:
    """An object whose arrays live on one device (the base of ``Link``).

    Subclasses override ``device_resident_accept`` to visit the arrays and
    child residents they own.
    """

    def __init__(self):
        self._device = cpu_device

    @property
    def device(self):
        """The ``Device`` this object's arrays live on."""
        return self._device

    @property
    def xp(self):
        """The array module of ``device``."""
        return self._device.xp

    def device_resident_accept(self, visitor):
        visitor.visit_device_resident(self)

    def to_device(self, device):
        """Move every array this object owns to ``device``; return self."""
        device = get_device(device)
        self.device_resident_accept(_ToDeviceVisitor(device, self))
        return self

    def to_cpu(self):
        """Move to the NumPy CPU device.

        .. deprecated:: Chainer v7 (warns, as Chainer 7): use
           ``to_device('@numpy')``.
        """
        _warn_deprecated_move('to_cpu', '@numpy')
        self.device_resident_accept(
            _ToDeviceVisitor(cpu_device, self, ('to_cpu', {})))
        return self

    def to_gpu(self, device=None):
        """Move to a GPU (the current one when ``device`` is None).

        .. deprecated:: Chainer v7 (warns, as Chainer 7): use
           ``to_device('@cupy:N')``.
        """
        _warn_deprecated_move('to_gpu', '@cupy:N')
        return self._to_gpu(device)

    def _to_gpu(self, device=None):
        # to_gpu without the warning (StandardUpdater's move: it does not
        # move arrays already on another GPU, as Chainer's).
        cuda.check_cuda_available()
        if device is None:
            device = cuda.cupy.cuda.Device()
        device = device if isinstance(device, Device) \
            else GpuDevice(device) if not isinstance(device, int) \
            else GpuDevice.from_device_id(device)
        self.device_resident_accept(
            _ToDeviceVisitor(device, self, ('to_gpu', {'device': device})))
        return self

    def to_intel64(self):
        """Move to the Intel64 (oneDNN) device.

        .. deprecated:: Chainer v7 (warns, as Chainer 7): use
           ``to_device('@intel64')``.
        """
        _warn_deprecated_move('to_intel64', '@intel64')
        self.device_resident_accept(
            _ToDeviceVisitor(Intel64Device(), self, ('to_intel64', {})))
        return self

    def from_chx(self):
        """Chainer's move back from ChainerX: a no-op here (no array is a
        ChainerX array); returns self."""
        return self

    def to_chx(self):
        """Chainer's move to ChainerX: ChainerX is not available."""
        raise RuntimeError('ChainerX is not available.')


def _warn_deprecated_move(method, device):
    # Chainer 7's message for the to_* moves of a link.
    import warnings
    warnings.warn("{} is deprecated. Please use to_device('{}') instead."
                  .format(method, device), DeprecationWarning, stacklevel=3)


def _method_for(device):
    """The ``to_*`` method (and its arguments) moving to ``device``."""
    if isinstance(device, Intel64Device):
        return 'to_intel64', {}
    if isinstance(device, GpuDevice):
        return 'to_gpu', {'device': device}
    if isinstance(device, CpuDevice):
        return 'to_cpu', {}
    return None, {}


class _ToDeviceVisitor:
    """Moves the arrays a DeviceResident visits to one device.

    As in Chainer 7, a resident below the one the move started from whose
    class overrides the matching ``to_cpu``/``to_gpu``/``to_intel64``
    (older code moving extra attributes there) has that method called;
    ``entry`` is the method the move was started with, if one was.
    """

    def __init__(self, device, root=None, entry=None):
        self.device = device
        self.root = root
        self.entry = entry

    def visit_device_resident(self, resident):
        resident._device = self.device
        if resident is self.root:
            return
        name, kwargs = self.entry or _method_for(self.device)
        if name is not None and \
                getattr(type(resident), name) is not \
                getattr(DeviceResident, name):
            getattr(resident, name)(**kwargs)

    def visit_array(self, array):
        return self.device.send(array)

    def visit_variable(self, variable):
        variable.to_device(self.device)
