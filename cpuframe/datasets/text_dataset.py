"""``TextDataset``: the lines of text files, by line number."""
import threading

from cpuframe.dataset import dataset_mixin


def _per_file(name, value, n):
    if value is None or isinstance(value, str):
        return [value] * n
    value = list(value)
    if len(value) != n:
        raise ValueError('TextDataset: length of each option must match with '
                         'the number of text files to read: expected one {} '
                         'per file ({}), got {}'.format(name, n, len(value)))
    return value


class TextDataset(dataset_mixin.DatasetMixin):
    """Each line of a text file (a ``str``, newline included), or with
    several files, the tuple of their lines at one line number.

    Args:
        paths: a path, or a list of paths with the same number of lines.
        encoding, errors, newline: as for :func:`open`; a list gives one per
            file.
        filter_func: called with the lines at each line number; the line
            number is kept when it returns True.

    Line boundaries are indexed once in the constructor; a pickled dataset
    keeps the index and reopens the files (which must not have changed).
    """

    def __init__(self, paths, encoding=None, errors=None, newline=None,
                 filter_func=None):
        if isinstance(paths, str):
            paths = [paths]
        paths = list(paths)
        if not paths:
            raise ValueError('TextDataset: at least one text file must be '
                             'specified')
        n = len(paths)
        self._paths = paths
        self._options = list(zip(_per_file('encoding', encoding, n),
                                 _per_file('errors', errors, n),
                                 _per_file('newline', newline, n)))
        self._open()
        starts = [[] for _ in paths]
        kept = []
        number = 0
        while True:
            positions = [f.tell() for f in self._files]
            lines = [f.readline() for f in self._files]
            ended = [line == '' for line in lines]
            if all(ended):
                break
            if any(ended):
                raise ValueError('TextDataset: number of lines in files does '
                                 'not match ({})'.format(', '.join(paths)))
            for start, position in zip(starts, positions):
                start.append(position)
            if filter_func is None or filter_func(*lines):
                kept.append(number)
            number += 1
        self._starts = starts
        self._kept = kept
        self._lock = threading.Lock()

    def _open(self):
        self._files = [open(path, 'rt', encoding=enc, errors=err, newline=nl)
                       for path, (enc, err, nl) in zip(self._paths,
                                                       self._options)]

    def __getstate__(self):
        state = dict(self.__dict__)
        del state['_files'], state['_lock']
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._open()
        self._lock = threading.Lock()

    def __len__(self):
        return len(self._kept)

    def get_example(self, i):
        if not 0 <= i < len(self._kept):
            raise IndexError('TextDataset: index {} out of range for {} '
                             'lines'.format(i, len(self._kept)))
        number = self._kept[i]
        with self._lock:
            lines = []
            for f, start in zip(self._files, self._starts):
                f.seek(start[number])
                lines.append(f.readline())
        return lines[0] if len(lines) == 1 else tuple(lines)

    def close(self):
        """Close the files now (they close with the dataset otherwise)."""
        errors = []
        for f in self._files:
            try:
                f.close()
            except OSError as error:
                errors.append(error)
        if errors:
            raise errors[0]
