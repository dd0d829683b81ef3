"""Datasets stored as a sequence of pickles in one file (Chainer's format).

``PickleDatasetWriter`` appends one pickled example after another;
``PickleDataset`` indexes where each begins and unpickles one on access, so
a dataset larger than memory is randomly accessible.  A file written by
Chainer's ``PickleDatasetWriter`` reads here and the other way round.
"""
import os
import pickle
import threading

from cpuframe.dataset import dataset_mixin


class PickleDatasetWriter:
    """Writes examples for :class:`PickleDataset`.

    Args:
        writer: a binary file object with ``write`` and ``tell``.
        protocol: the :mod:`pickle` protocol.
    """

    def __init__(self, writer, protocol=pickle.HIGHEST_PROTOCOL):
        self._writer = writer
        self._protocol = protocol
        self._positions = []

    def write(self, x):
        """Append the example ``x``."""
        self._positions.append(self._writer.tell())
        pickle.dump(x, self._writer, protocol=self._protocol)

    def flush(self):
        flush = getattr(self._writer, 'flush', None)
        if flush is not None:
            flush()

    def close(self):
        self._writer.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()


class PickleDataset(dataset_mixin.DatasetMixin):
    """The examples a :class:`PickleDatasetWriter` wrote, by index.

    Args:
        reader: a binary file object that can seek (random access).

    Reading is serialized by a lock; a dataset opened with
    :func:`open_pickle_dataset` reopens its file in a forked or unpickled
    copy (e.g. in ``MultiprocessIterator`` workers), so processes never
    share a file offset.
    """

    def __init__(self, reader):
        seekable = getattr(reader, 'seekable', None)
        if seekable is None or not seekable():
            raise ValueError('PickleDataset: reader must support random access '
                             '(seekable), got {}'.format(type(reader).__name__))
        self._reader = reader
        self._positions = self._index(reader)
        self._lock = threading.RLock()

    @staticmethod
    def _index(reader):
        positions = []
        reader.seek(0)
        while True:
            position = reader.tell()
            try:
                # A fresh unpickler per record: records share no memo.
                pickle.load(reader)
            except EOFError:
                break
            positions.append(position)
        return positions

    def __getstate__(self):
        state = dict(self.__dict__)
        del state['_lock']
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.RLock()

    def __len__(self):
        return len(self._positions)

    def get_example(self, i):
        with self._lock:
            reopen = getattr(self._reader, 'reopen_if_forked', None)
            if reopen is not None:
                reopen()
            self._reader.seek(self._positions[i])
            return pickle.load(self._reader)

    def close(self):
        """Close the file; the dataset is unusable afterwards."""
        with self._lock:
            self._reader.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()


class _ProcessLocalFile:
    """A read-only binary file that each process opens for itself."""

    def __init__(self, path):
        self._path = path
        self._open()

    def _open(self):
        self._file = open(self._path, 'rb')
        self._pid = os.getpid()

    def reopen_if_forked(self):
        if self._pid != os.getpid():
            self._open()

    def __getstate__(self):
        return {'_path': self._path}

    def __setstate__(self, state):
        self._path = state['_path']
        self._open()

    def seekable(self):
        return True

    def seek(self, offset, whence=0):
        return self._file.seek(offset, whence)

    def tell(self):
        return self._file.tell()

    def read(self, size=-1):
        return self._file.read(size)

    def readinto(self, buffer):
        return self._file.readinto(buffer)

    def readline(self, size=-1):
        return self._file.readline(size)

    def peek(self, size=0):
        return self._file.peek(size)

    def close(self):
        self._file.close()


def open_pickle_dataset(path):
    """A :class:`PickleDataset` of the file at ``path`` (use it in ``with``)."""
    return PickleDataset(_ProcessLocalFile(path))


def open_pickle_dataset_writer(path, protocol=pickle.HIGHEST_PROTOCOL):
    """A :class:`PickleDatasetWriter` to a new file at ``path``."""
    return PickleDatasetWriter(open(path, 'wb'), protocol=protocol)
