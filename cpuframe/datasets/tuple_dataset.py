"""``TupleDataset``: examples are tuples of the i-th items of datasets."""
from cpuframe.datasets._indexing import is_batch_index, take


class TupleDataset:
    """Dataset of tuples zipped from datasets of equal length.

    ``TupleDataset(x, t)[i] == (x[i], t[i])``; a slice or index list gives
    a list of such tuples.  The datasets are usually arrays, which makes
    slicing cheap.

    >>> ds = TupleDataset(['a', 'b', 'c'], [10, 11, 12])
    >>> ds[1]
    ('b', 11)
    >>> ds[1:]
    [('b', 11), ('c', 12)]
    """

    def __init__(self, *datasets):
        if not datasets:
            raise ValueError('TupleDataset: no datasets are given')
        length = len(datasets[0])
        for i, dataset in enumerate(datasets):
            if len(dataset) != length:
                raise ValueError(
                    'TupleDataset: dataset {} has length {}, but dataset 0 '
                    'has length {}'.format(i, len(dataset), length))
        self._datasets = datasets
        self._length = length

    def __getitem__(self, index):
        batches = [take(dataset, index) for dataset in self._datasets]
        if is_batch_index(index):
            return list(zip(*batches))
        return tuple(batches)

    def __len__(self):
        return self._length
