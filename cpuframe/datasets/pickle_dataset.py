"""A dataset of pickled objects in one file, loaded on access."""
import io
import multiprocessing.util
import pickle
import threading

from cpuframe.dataset import dataset_mixin


class PickleDatasetWriter:
    """Appends pickled examples to ``writer`` (a binary file-like object
    with ``write`` and ``tell``); read them back with
    :class:`PickleDataset`.  Usable as a context manager (closes the
    writer)."""

    def __init__(self, writer, protocol=pickle.HIGHEST_PROTOCOL):
        self._writer = writer
        self._protocol = protocol
        self._positions = []

    def write(self, x):
        """Pickle one example."""
        start = self._writer.tell()
        pickle.dump(x, self._writer, protocol=self._protocol)
        self._positions.append(start)

    def flush(self):
        flush = getattr(self._writer, 'flush', None)
        if flush is not None:
            flush()

    def close(self):
        self._writer.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class PickleDataset(dataset_mixin.DatasetMixin):
    """The objects pickled one after another in ``reader`` (a seekable
    binary file-like object), each unpickled when accessed.

    The constructor scans the file once for where each object starts.
    After a fork, a reader with an ``after_fork`` method (as the one of
    :func:`open_pickle_dataset`) reopens its file so processes do not
    share a file position.  Usable as a context manager (closes the
    reader).
    """

    def __init__(self, reader):
        if not reader.seekable():
            raise ValueError('reader must support random access')
        self._reader = reader
        self._positions = []
        reader.seek(0)
        while True:
            start = reader.tell()
            try:
                pickle.load(reader)
            except EOFError:
                break
            self._positions.append(start)
        self._lock = threading.RLock()
        self._register_hook()

    def _register_hook(self):
        multiprocessing.util.register_after_fork(self, PickleDataset._after_fork)

    def _after_fork(self):
        after_fork = getattr(self._reader, 'after_fork', None)
        if callable(after_fork):
            after_fork()

    def __getstate__(self):
        state = dict(self.__dict__)
        del state['_lock']
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.RLock()
        self._register_hook()

    def close(self):
        """Close the reader; the dataset cannot be read afterwards."""
        with self._lock:
            self._reader.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __len__(self):
        return len(self._positions)

    def get_example(self, i):
        with self._lock:
            self._reader.seek(self._positions[i])
            return pickle.load(self._reader)


class _ReopeningFile(io.RawIOBase):
    """A read-only binary file that reopens itself after a fork (and after
    unpickling), so a child process gets its own file description."""

    def __init__(self, path):
        super().__init__()
        self._path = path
        self._open()

    def _open(self):
        self._fp = open(self._path, 'rb')

    def after_fork(self):
        self._fp.close()
        self._open()

    def __getstate__(self):
        return {'_path': self._path}

    def __setstate__(self, state):
        self._path = state['_path']
        self._open()

    def readable(self):
        return True

    def seekable(self):
        return self._fp.seekable()

    def seek(self, offset, whence=io.SEEK_SET):
        return self._fp.seek(offset, whence)

    def tell(self):
        return self._fp.tell()

    def readinto(self, b):
        return self._fp.readinto(b)

    def fileno(self):
        return self._fp.fileno()

    def close(self):
        self._fp.close()
        super().close()


def open_pickle_dataset(path):
    """A :class:`PickleDataset` reading the file at ``path`` (close it, or
    use ``with``)."""
    return PickleDataset(_ReopeningFile(path))


def open_pickle_dataset_writer(path, protocol=pickle.HIGHEST_PROTOCOL):
    """A :class:`PickleDatasetWriter` writing to a new file at ``path``
    (close it, or use ``with``)."""
    return PickleDatasetWriter(open(path, 'wb'), protocol=protocol)
