"""``DictDataset``: examples are dicts of the i-th items of named datasets."""
from cpuframe.datasets._indexing import is_batch_index, take


class DictDataset:
    """Dataset of dicts built from keyword datasets of equal length.

    ``DictDataset(x=xs, t=ts)[i] == {'x': xs[i], 't': ts[i]}``; a slice or
    index list gives a list of such dicts.

    >>> ds = DictDataset(x=[1, 2, 3], t=[0, 1, 0])
    >>> ds[2] == {'x': 3, 't': 0}
    True
    """

    def __init__(self, **datasets):
        if not datasets:
            raise ValueError('DictDataset: no datasets are given')
        length = None
        for key, dataset in datasets.items():
            if length is None:
                length, first = len(dataset), key
            elif len(dataset) != length:
                raise ValueError(
                    'DictDataset: dataset {!r} has length {}, but {!r} has '
                    'length {}'.format(key, len(dataset), first, length))
        self._datasets = datasets
        self._length = length

    def __getitem__(self, index):
        batches = {key: take(dataset, index)
                   for key, dataset in self._datasets.items()}
        if is_batch_index(index):
            n = len(next(iter(batches.values())))
            return [{key: batch[i] for key, batch in batches.items()}
                    for i in range(n)]
        return batches

    def __len__(self):
        return self._length
