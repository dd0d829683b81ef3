"""HDF5 serialization (Chainer's ``save_hdf5``/``load_hdf5``); needs h5py.

Groups follow the object's hierarchy (``/predictor/l1/W``), as Chainer
writes them.  Without h5py every entry point raises ``RuntimeError`` saying
how to install it.
"""
import os

import numpy

from cpuframe import _atomic_write, backend, serializer

try:
    import h5py
    _import_error = None
except ImportError as e:  # pragma: no cover - depends on the environment
    h5py = None
    _import_error = e


def _check_available(where):
    if h5py is None:
        raise RuntimeError(
            '{}: h5py is not installed ({}); install it with '
            '`pip install h5py`'.format(where, _import_error))


class HDF5Serializer(serializer.Serializer):
    """Writes values into an open ``h5py.Group``."""

    def __init__(self, group, compression=4):
        _check_available('HDF5Serializer')
        self.group = group
        self.compression = compression

    def __getitem__(self, key):
        return HDF5Serializer(self.group.require_group(key), self.compression)

    def __call__(self, key, value):
        if value is None:
            self.group.create_dataset(key, data=h5py.Empty('f'))
            return value
        if isinstance(value, str):
            self.group.create_dataset(key, data=value)
            return value
        arr = numpy.asarray(backend.cpu_device.send(value)) \
            if backend.is_array(value) else numpy.asarray(value)
        options = {'compression': 'gzip', 'compression_opts': self.compression} \
            if arr.ndim and self.compression else {}
        self.group.create_dataset(key, data=arr, **options)
        return value


class HDF5Deserializer(serializer.Deserializer):
    """Reads values from an open ``h5py.Group``."""

    def __init__(self, group, path='', strict=True):
        _check_available('HDF5Deserializer')
        self.group = group
        self.path = path
        self.strict = strict

    def __getitem__(self, key):
        name = self.path + key + '/'
        if key not in self.group:
            if self.strict:
                raise KeyError('load_hdf5: group {!r} not found'.format(name))
            return _Missing(name)
        return HDF5Deserializer(self.group[key], name, self.strict)

    def __call__(self, key, value):
        if key not in self.group:
            if self.strict:
                raise KeyError('load_hdf5: key {!r} not found'.format(
                    self.path + key))
            return value
        dataset = self.group[key]
        if dataset.shape is None:
            return None
        data = dataset[()]
        if value is None:
            return numpy.asarray(data)
        if backend.is_array(value):
            data = numpy.asarray(data)
            if tuple(value.shape) != data.shape:
                raise ValueError(
                    'load_hdf5: key {!r}: expected shape {}, got {}'.format(
                        self.path + key, tuple(value.shape), data.shape))
            backend.copyto(value, data.astype(value.dtype, copy=False))
            return value
        if isinstance(data, bytes):
            data = data.decode()
        if isinstance(value, (bool, int, float, str)):
            return type(value)(data)
        return data


class _Missing(serializer.Deserializer):
    """A group absent from a non-strict load: every value stays as it is."""

    def __init__(self, path):
        self.path = path

    def __getitem__(self, key):
        return _Missing(self.path + key + '/')

    def __call__(self, key, value):
        return value


def save_hdf5(filename, obj, compression=4):
    """Save ``obj`` to an HDF5 file (written to a temporary file, renamed)."""
    _check_available('save_hdf5')

    def write(tmp):
        with h5py.File(tmp, 'w') as f:
            HDF5Serializer(f, compression=compression).save(obj)

    _atomic_write.write_atomically(filename, write)


def load_hdf5(filename, obj, path='', strict=True):
    """Load ``obj`` from an HDF5 file written by ``save_hdf5`` or Chainer.

    A failed load restores the values ``obj`` had before the call.
    """
    _check_available('load_hdf5')
    from cpuframe.serializers.npz import NpzDeserializer, _Backup
    backup = _Backup()
    backup.save(obj)
    try:
        with h5py.File(os.fspath(filename), 'r') as f:
            group = f[path] if path else f
            HDF5Deserializer(group, strict=strict).load(obj)
    except BaseException:
        NpzDeserializer(backup.target, strict=False).load(obj)
        raise
