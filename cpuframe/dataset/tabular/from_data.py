"""Building a TabularDataset from lists, arrays and callables."""
from cpuframe import backend
from cpuframe.dataset.tabular.tabular_dataset import TabularDataset


def from_data(data, *, size=None):
    """A :class:`TabularDataset` of ``data``, given as:

    - a list or array: one column (mode None);
    - ``(key, column)``: one named column, where ``column`` is a list, an
      array or a callable ``f(i)`` giving row ``i``;
    - ``((key, ...), f)``: several columns from a callable returning a
      tuple or dict per row;
    - a tuple of the above: their columns side by side (mode ``tuple``);
    - a dict ``{key: column, (key, ...): f}``: the same, mode ``dict``.

    ``size`` is the number of rows; it is needed only when no column is a
    list or an array.
    """
    if isinstance(data, tuple):
        if len(data) == 2:
            key, column = data
            if isinstance(key, str) or (
                    isinstance(key, tuple) and key and
                    all(isinstance(k, str) for k in key)):
                return _column(key, column, size)
        entries = [d if isinstance(d, tuple) else (None, d) for d in data]
        size = _infer_size([c for _, c in entries], size)
        parts = [_column(k, c, size) for k, c in entries]
        return parts[0].join(*parts[1:]).astuple()
    if isinstance(data, dict):
        size = _infer_size(list(data.values()), size)
        parts = [_column(k, c, size) for k, c in data.items()]
        return parts[0].join(*parts[1:]).asdict()
    return _column(None, data, size)


def _infer_size(columns, size):
    if size is not None:
        return size
    for c in columns:
        try:
            return len(c)
        except TypeError:
            continue
    return None


def _column(key, data, size):
    if backend.is_array(data) or isinstance(data, list):
        return _Column('_{}'.format(id(data)) if key is None else key, data)
    if callable(data):
        if key is None:
            raise ValueError('key(s) must be specified for callable')
        if size is None:
            raise ValueError('size must be specified for callable')
        return _Index(size).transform(key, data)
    raise TypeError('from_data: expected a list, an array or a callable, '
                    'got {}'.format(type(data).__name__))


class _Column(TabularDataset):
    """One column held as a list or an array."""

    def __init__(self, key, data):
        self._key = key
        self._data = data

    def __len__(self):
        return len(self._data)

    @property
    def keys(self):
        return (self._key,)

    @property
    def mode(self):
        return None

    def get_examples(self, indices, key_indices):
        n = 1 if key_indices is None else len(key_indices)
        if indices is None:
            column = self._data
        elif isinstance(indices, slice) or not isinstance(self._data, list):
            column = self._data[indices]
        else:
            column = [self._data[i] for i in indices]
        return (column,) * n


class _Index(TabularDataset):
    """The row numbers ``0 .. size - 1`` (the input of a callable
    column)."""

    def __init__(self, size):
        self._size = size

    def __len__(self):
        return self._size

    @property
    def keys(self):
        return ('index',)

    @property
    def mode(self):
        return None

    def get_examples(self, indices, key_indices):
        if indices is None:
            indices = slice(None)
        if isinstance(indices, slice):
            indices = list(range(*indices.indices(self._size)))
        n = 1 if key_indices is None else len(key_indices)
        return (indices,) * n
