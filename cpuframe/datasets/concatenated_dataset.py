"""``ConcatenatedDataset``: several datasets one after the other."""
import operator

from cpuframe.dataset import dataset_mixin


class ConcatenatedDataset(dataset_mixin.DatasetMixin):
    """The examples of ``datasets[0]``, then of ``datasets[1]``, ...

    >>> ds = ConcatenatedDataset([1, 2], [3])
    >>> len(ds), ds[2], ds[:]
    (3, 3, [1, 2, 3])
    """

    def __init__(self, *datasets):
        self._datasets = datasets

    def __len__(self):
        return sum(len(dataset) for dataset in self._datasets)

    def get_example(self, i):
        try:
            i = operator.index(i)
        except TypeError:
            raise TypeError(
                'ConcatenatedDataset: expected an integer index, got '
                '{}'.format(type(i).__name__)) from None
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(
                'ConcatenatedDataset: index {} out of range for length '
                '{}'.format(i, n))
        for dataset in self._datasets:
            if i < len(dataset):
                return dataset[i]
            i -= len(dataset)
        raise IndexError('ConcatenatedDataset: index out of range')
