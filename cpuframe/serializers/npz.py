"""NumPy ``.npz`` serialization with Chainer's key layout.

Keys are slash-separated paths without a leading slash (``predictor/l1/W``),
so files written by Chainer load here and the reverse.  Saving writes to a
temporary file renamed into place; a failed load restores the target's
previous values.
"""
import copy
import os

import numpy

from cpuframe import _atomic_write, backend, serializer


def _to_numpy(value):
    if value is None:
        return numpy.asarray(None)
    if backend.is_array(value):
        return numpy.asarray(backend.cpu_device.send(value))
    return numpy.asarray(value)


class DictionarySerializer(serializer.Serializer):
    """Collects values into a flat dict keyed by path."""

    def __init__(self, target=None, path=''):
        self.target = {} if target is None else target
        self.path = path

    def __getitem__(self, key):
        key = key.strip('/')
        return DictionarySerializer(self.target, self.path + key + '/')

    def __call__(self, key, value):
        self.target[self.path + key.lstrip('/')] = _to_numpy(value)
        return value


class NpzDeserializer(serializer.Deserializer):
    """Reads values from an npz mapping (or any dict of arrays).

    ``strict=False`` leaves values whose key is missing unchanged;
    ``ignore_names`` (names or a callable) skips keys.  With ``dry_run``
    arrays are only checked (key, shape, dtype), never written; other
    values are returned as loaded.
    """

    def __init__(self, npz, path='', strict=True, ignore_names=None,
                 file_name=None, dry_run=False):
        self.npz = npz
        self.path = path
        self.strict = strict
        if ignore_names is None:
            ignore_names = []
        self.ignore_names = ignore_names
        self.file_name = file_name
        self.dry_run = dry_run

    def __getitem__(self, key):
        key = key.strip('/')
        return NpzDeserializer(self.npz, self.path + key + '/', self.strict,
                               self.ignore_names, self.file_name, self.dry_run)

    def _ignored(self, key):
        if callable(self.ignore_names):
            return self.ignore_names(key)
        return key in self.ignore_names

    def _where(self):
        return ' in {}'.format(self.file_name) if self.file_name else ''

    def __call__(self, key, value):
        key = self.path + key.lstrip('/')
        if self._ignored(key):
            return value
        if key not in self.npz:
            if not self.strict:
                return value
            raise KeyError('load_npz: key {!r} not found{}'.format(
                key, self._where()))
        data = self.npz[key]
        if data.dtype == object and data.shape == () and data[()] is None:
            return None
        if value is None:
            return value if self.dry_run and data.ndim else data
        if backend.is_array(value):
            if tuple(value.shape) != tuple(data.shape):
                raise ValueError(
                    'load_npz: key {!r}{}: expected shape {}, got {}'.format(
                        key, self._where(), tuple(value.shape), data.shape))
            if not numpy.can_cast(data.dtype, value.dtype, 'same_kind'):
                raise ValueError(
                    'load_npz: key {!r}{}: cannot load dtype {} into {}'.format(
                        key, self._where(), data.dtype, value.dtype))
            if not self.dry_run:
                backend.copyto(value, data.astype(value.dtype, copy=False))
            return value
        if data.ndim == 0 and data.dtype.kind in 'biufUS':
            item = data.item()
            if isinstance(value, (bool, int, float, str)):
                return type(value)(item)
            return item
        return data


def save_npz(file, obj, compression=True):
    """Save ``obj`` (a Link, Optimizer or anything with ``serialize``).

    ``file`` is a path or a writable binary file object.  A path is
    written through a temporary file in the same directory and renamed,
    so an interrupted save never leaves a partial file under that name;
    the file's mode follows the umask, as for ``open``.
    """
    if isinstance(obj, dict):
        target = {k: _to_numpy(v) for k, v in obj.items()}
    else:
        target = serialize(obj)
    savez = numpy.savez_compressed if compression else numpy.savez
    if not isinstance(file, (str, os.PathLike)):
        savez(file, **target)
        return

    def write(tmp):
        # A file object: given a path, numpy.savez would append '.npz'.
        with open(tmp, 'wb') as f:
            savez(f, **target)

    _atomic_write.write_atomically(file, write)


def serialize(obj):
    """The dict of arrays ``save_npz`` would write for ``obj``."""
    s = DictionarySerializer()
    s.save(obj)
    return s.target


class _Backup(DictionarySerializer):
    """Copies every value an object serializes (to undo a failed load).

    A DictionarySerializer, so user code that tests for one saves here.
    """

    def __getitem__(self, key):
        return _Backup(self.target, self.path + key.strip('/') + '/')

    def __call__(self, key, value):
        if backend.is_array(value):
            stored = numpy.array(backend.cpu_device.send(value), copy=True)
        else:
            stored = numpy.asarray(copy.deepcopy(value))
        self.target[self.path + key.lstrip('/')] = stored
        return value


def load_npz(file, obj, path='', strict=True, ignore_names=None):
    """Load ``obj``'s values from an npz file saved by ``save_npz`` or Chainer.

    ``path`` selects a sub-tree (``'updater/model:main/'`` in a trainer
    snapshot).  Every array's key, shape and dtype is checked before any is
    written; on a missing key (with ``strict``), a mismatch or a corrupt
    file the error names the key or the file and ``obj`` keeps the values
    it had before the call.
    """
    name = os.fspath(file) if isinstance(file, (str, os.PathLike)) else None
    try:
        npz = numpy.load(file, allow_pickle=True)
    except Exception as e:  # noqa: BLE001 - BadZipFile, OSError, ValueError...
        raise ValueError('load_npz: cannot read {}: {}'.format(
            name or 'the file', e)) from e
    with npz:
        try:
            # Read every array once; a truncated member fails here.
            data = {k: npz[k] for k in npz.files}
        except Exception as e:  # noqa: BLE001 - zip/pickle errors vary
            raise ValueError('load_npz: {} is corrupt: {}'.format(
                name or 'the file', e)) from e
    backup = _Backup()
    backup.save(obj)
    try:
        # First check every array without writing any, then load for real;
        # values that are not arrays are restored from the backup on failure.
        for dry_run in (True, False):
            NpzDeserializer(data, path=path, strict=strict,
                            ignore_names=ignore_names, file_name=name,
                            dry_run=dry_run).load(obj)
    except BaseException:
        NpzDeserializer(backup.target, strict=False).load(obj)
        raise
