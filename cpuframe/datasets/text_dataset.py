"""A dataset of the lines of one or more text files, read on access."""
import threading

from cpuframe.dataset import dataset_mixin


def _per_file(value, n, name):
    if value is None or isinstance(value, str):
        return [value] * n
    value = list(value)
    if len(value) != n:
        raise ValueError('length of each option must match with the number '
                         'of text files to read ({}: {} values for {} files)'
                         .format(name, len(value), n))
    return value


class TextDataset(dataset_mixin.DatasetMixin):
    """The lines of a text file (a ``str`` each), or of several files read
    in step (a tuple of ``str``, one line per file).

    The constructor scans the files once and remembers where each line
    starts; ``dataset[i]`` seeks there and reads the line (with its line
    ending).  The dataset can be pickled: the offsets travel along, the
    files are reopened (they must not have changed).

    Args:
        paths (str or list of str): the file(s); several files must have
            the same number of lines.
        encoding, errors, newline (str or list of str): passed to
            :func:`open` (one value, or one per file).
        filter_func (callable): called with the lines of each position (one
            argument per file); only positions where it returns True are
            kept.
    """

    def __init__(self, paths, encoding=None, errors=None, newline=None,
                 filter_func=None):
        if isinstance(paths, str):
            paths = [paths]
        elif not paths:
            raise ValueError('at least one text file must be specified')
        paths = list(paths)
        n = len(paths)
        self._paths = paths
        self._encoding = _per_file(encoding, n, 'encoding')
        self._errors = _per_file(errors, n, 'errors')
        self._newline = _per_file(newline, n, 'newline')
        self._fps = None
        self._open()
        starts = [[0] for _ in paths]
        kept = []
        count = 0
        while True:
            lines = [fp.readline() for fp in self._fps]
            if not all(lines):
                if any(lines):
                    raise ValueError('number of lines in files does not match')
                break
            for offsets, fp in zip(starts, self._fps):
                offsets.append(fp.tell())
            if filter_func is None or filter_func(*lines):
                kept.append(count)
            count += 1
        self._bounds = starts
        self._lines = kept
        self._lock = threading.Lock()

    def _open(self):
        self._fps = [open(p, 'rt', encoding=e, errors=r, newline=nl)
                     for p, e, r, nl in zip(self._paths, self._encoding,
                                            self._errors, self._newline)]

    def __getstate__(self):
        state = dict(self.__dict__)
        del state['_fps'], state['_lock']
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._open()
        self._lock = threading.Lock()

    def __len__(self):
        return len(self._lines)

    def close(self):
        """Close the files (they are closed with the dataset otherwise)."""
        error = None
        for fp in self._fps:
            try:
                fp.close()
            except Exception as e:  # noqa: BLE001 - close all, raise one
                error = e
        if error is not None:
            raise error

    def get_example(self, i):
        if i < 0 or i >= len(self._lines):
            raise IndexError('TextDataset: index {} out of range'.format(i))
        line = self._lines[i]
        with self._lock:
            out = []
            for offsets, fp in zip(self._bounds, self._fps):
                fp.seek(offsets[line])
                out.append(fp.readline())
        return out[0] if len(out) == 1 else tuple(out)
