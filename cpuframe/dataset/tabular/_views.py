"""Views that TabularDataset's methods return (slices, concatenations,
joins, transforms, mode and converter overrides)."""
import bisect
import itertools
import numbers

import numpy

from cpuframe.dataset.tabular.tabular_dataset import TabularDataset


def _length(indices, n):
    if indices is None:
        return n
    if isinstance(indices, slice):
        return len(range(*indices.indices(n)))
    return len(indices)


def _as_list(indices, n):
    if indices is None:
        return list(range(n))
    if isinstance(indices, slice):
        return list(range(*indices.indices(n)))
    return list(indices)


class _Wrapper(TabularDataset):
    """A view of one dataset: same rows, columns, mode and converter unless
    a subclass says otherwise."""

    def __init__(self, dataset):
        self._dataset = dataset

    def __len__(self):
        return len(self._dataset)

    @property
    def keys(self):
        return self._dataset.keys

    @property
    def mode(self):
        return self._dataset.mode

    def get_examples(self, indices, key_indices):
        return self._dataset.get_examples(indices, key_indices)

    def convert(self, data):
        return self._dataset.convert(data)


class AsMode(_Wrapper):

    def __init__(self, dataset, mode):
        super().__init__(dataset)
        self._mode = mode

    @property
    def mode(self):
        return self._mode


class WithConverter(_Wrapper):

    def __init__(self, dataset, converter):
        super().__init__(dataset)
        self._converter = converter

    def convert(self, data):
        if isinstance(data, tuple):
            return self._converter(*data)
        if isinstance(data, dict):
            return self._converter(**data)
        return self._converter(data)


# -- slicing ------------------------------------------------------------------

def _check_rows(indices, n):
    if isinstance(indices, slice) or len(indices) == 0:
        return indices
    if all(isinstance(i, (bool, numpy.bool_)) for i in indices):
        if len(indices) != n:
            raise ValueError('The number of booleans is different from the '
                             'length of dataset')
        return [i for i, keep in enumerate(indices) if keep]
    rows = []
    for i in indices:
        i = int(i)
        j = i + n if i < 0 else i
        if not 0 <= j < n:
            raise IndexError('index {} is out of bounds for dataset with '
                             'size {}'.format(i, n))
        rows.append(j)
    return rows


def _check_keys(keys, names):
    if keys is None:
        return None
    out = []
    for key in keys:
        if isinstance(key, numbers.Integral):
            j = key + len(names) if key < 0 else key
            if not 0 <= j < len(names):
                raise IndexError('index {} is out of bounds for keys with '
                                 'size {}'.format(key, len(names)))
        else:
            if key not in names:
                raise KeyError('{} does not exists'.format(key))
            j = names.index(key)
        out.append(j)
    return tuple(out)


def _compose_rows(outer, inner, n_outer, n_view):
    """Rows of the underlying dataset for rows ``inner`` of a view that
    selects rows ``outer`` of it."""
    if inner is None:
        return outer
    if outer is None:
        return inner
    if isinstance(outer, slice) and isinstance(inner, slice):
        o_start, _, o_step = outer.indices(n_outer)
        i_start, i_stop, i_step = inner.indices(n_view)
        start = o_start + o_step * i_start
        stop = o_start + o_step * i_stop
        step = o_step * i_step
        if start < 0 and step > 0:
            start = None
        if stop < 0 and step < 0:
            stop = None
        return slice(start, stop, step)
    if isinstance(outer, slice):
        o_start, _, o_step = outer.indices(n_outer)
        return [o_start + o_step * i for i in _as_list(inner, n_view)]
    if isinstance(inner, slice):
        return outer[inner]
    return [outer[i] for i in inner]


class Slice(_Wrapper):

    def __init__(self, dataset, indices, keys):
        super().__init__(dataset)
        if keys is None:
            self._unary = None
        elif isinstance(keys, tuple):
            self._unary = False
        else:
            self._unary = True
            keys = (keys,)
        self._indices = _check_rows(indices, len(dataset))
        self._key_indices = _check_keys(keys, tuple(dataset.keys))

    def __len__(self):
        return _length(self._indices, len(self._dataset))

    @property
    def keys(self):
        if self._key_indices is None:
            return self._dataset.keys
        return tuple(self._dataset.keys[j] for j in self._key_indices)

    @property
    def mode(self):
        if self._unary is None:
            return self._dataset.mode
        if self._unary:
            return None
        return self._dataset.mode or tuple

    def get_examples(self, indices, key_indices):
        rows = _compose_rows(self._indices, indices, len(self._dataset),
                             len(self))
        if self._key_indices is None:
            cols = key_indices
        elif key_indices is None:
            cols = self._key_indices
        else:
            cols = tuple(self._key_indices[j] for j in key_indices)
        return self._dataset.get_examples(rows, cols)


class SliceHelper:

    def __init__(self, dataset):
        self._dataset = dataset

    def __getitem__(self, args):
        if isinstance(args, tuple):
            indices, keys = args
        else:
            indices, keys = args, None
        return Slice(self._dataset, indices, keys)


# -- concat and join ------------------------------------------------------------

class Concat(TabularDataset):

    def __init__(self, *datasets):
        for d in datasets[1:]:
            if tuple(d.keys) != tuple(datasets[0].keys):
                raise ValueError('All datasets must have the same keys')
        self._datasets = datasets

    def __len__(self):
        return sum(len(d) for d in self._datasets)

    @property
    def keys(self):
        return self._datasets[0].keys

    @property
    def mode(self):
        return self._datasets[0].mode

    def get_examples(self, indices, key_indices):
        n_cols = len(self.keys) if key_indices is None else len(key_indices)
        ends = list(itertools.accumulate(len(d) for d in self._datasets))
        # Route every requested row to its dataset, keeping the order.
        parts = {}
        where = []
        for r in _as_list(indices, len(self)):
            k = bisect.bisect_right(ends, r)
            local = parts.setdefault(k, [])
            local.append(r - (ends[k - 1] if k else 0))
            where.append((k, len(local) - 1))
        if not parts:
            return tuple([] for _ in range(n_cols))
        fetched = {k: self._datasets[k].get_examples(local, key_indices)
                   for k, local in parts.items()}
        if len(fetched) == 1:
            return next(iter(fetched.values()))
        return tuple([fetched[k][c][j] for k, j in where]
                     for c in range(n_cols))

    def convert(self, data):
        return self._datasets[0].convert(data)


class Join(TabularDataset):

    def __init__(self, *datasets):
        seen = set(datasets[0].keys)
        for d in datasets[1:]:
            if len(d) != len(datasets[0]):
                raise ValueError('All datasets must have the same length')
            if seen.intersection(d.keys):
                raise ValueError('All keys must be unique among all datasets')
            seen.update(d.keys)
        self._datasets = datasets

    def __len__(self):
        return len(self._datasets[0])

    @property
    def keys(self):
        return tuple(k for d in self._datasets for k in d.keys)

    @property
    def mode(self):
        for d in self._datasets:
            if d.mode:
                return d.mode
        return tuple

    def get_examples(self, indices, key_indices):
        if key_indices is None:
            return tuple(col for d in self._datasets
                         for col in d.get_examples(indices, None))
        columns = {}
        offset = 0
        for d in self._datasets:
            local = []
            for j in key_indices:
                if offset <= j < offset + len(d.keys) and \
                        j - offset not in local:
                    local.append(j - offset)
            if local:
                for j, col in zip(local, d.get_examples(indices,
                                                        tuple(local))):
                    columns[offset + j] = col
            offset += len(d.keys)
        return tuple(columns[j] for j in key_indices)

    def convert(self, data):
        return self._datasets[0].convert(data)


# -- transforms -------------------------------------------------------------------

class Transform(_Wrapper):

    def __init__(self, dataset, keys, function, batch):
        super().__init__(dataset)
        self._keys = keys if isinstance(keys, tuple) else (keys,)
        self._function = function
        self._batch = batch
        self._mode = None
        self._mode_known = False

    @property
    def keys(self):
        return self._keys

    @property
    def mode(self):
        if not self._mode_known:
            self.get_examples([0], None)
        return self._mode

    def _call(self, values):
        d = self._dataset
        if d.mode is dict:
            return self._function(**dict(zip(d.keys, values)))
        return self._function(*values)

    def _record_mode(self, out):
        mode = tuple if isinstance(out, tuple) else \
            dict if isinstance(out, dict) else None
        if self._mode_known and mode is not self._mode:
            name = 'transform_batch' if self._batch else 'transform'
            raise ValueError('{} must not change its return type'.format(name))
        self._mode, self._mode_known = mode, True
        if mode is dict:
            return tuple(out[k] for k in self._keys)
        if mode is None:
            return (out,)
        return out

    def get_examples(self, indices, key_indices):
        if key_indices is None:
            key_indices = range(len(self._keys))
        columns_in = self._dataset.get_examples(indices, None)
        if self._batch:
            n = _length(indices, len(self))
            out = self._record_mode(self._call(columns_in))
            if not all(len(col) == n for col in out):
                raise ValueError(
                    'transform_batch must not change the length of data')
            return tuple(out[j] for j in key_indices)
        columns = tuple([] for _ in key_indices)
        for values in zip(*columns_in):
            out = self._record_mode(self._call(values))
            for c, j in enumerate(key_indices):
                columns[c].append(out[j])
        return columns
