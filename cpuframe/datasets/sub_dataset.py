"""``SubDataset`` and the functions that split a dataset with it."""
import operator

import numpy

from cpuframe.dataset import dataset_mixin


def _as_int(value, func, name):
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError('{}: {} must be an integer, got {}'.format(
            func, name, type(value).__name__)) from None


class SubDataset(dataset_mixin.DatasetMixin):
    """The examples ``start`` to ``finish - 1`` of a dataset, optionally
    through a permutation.

    Without ``order``, the ``i``-th example is ``dataset[start + i]``; with
    it, ``dataset[order[start + i]]``.  A negative ``i`` counts from
    ``finish``.

    Args:
        dataset: The base dataset.
        start (int): First index of the interval.
        finish (int): One past the last index of the interval.
        order (sequence of ints): A permutation of the base dataset's
            indexes, of the same length as the dataset; ``None`` for
            ascending order.
    """

    def __init__(self, dataset, start, finish, order=None):
        start = _as_int(start, 'SubDataset', 'start')
        finish = _as_int(finish, 'SubDataset', 'finish')
        if start < 0 or finish > len(dataset) or start > finish:
            raise ValueError(
                'SubDataset: expected 0 <= start <= finish <= len(dataset) '
                '= {}, got start={}, finish={}'.format(
                    len(dataset), start, finish))
        if order is not None and len(order) != len(dataset):
            raise ValueError(
                'SubDataset: order must have the same length as the base '
                'dataset: len(order) = {} while len(dataset) = {}'.format(
                    len(order), len(dataset)))
        self._dataset = dataset
        self._start = start
        self._finish = finish
        self._size = finish - start
        self._order = order

    def __len__(self):
        return self._size

    def get_example(self, i):
        i = _as_int(i, 'SubDataset', 'the index')
        if i >= 0:
            if i >= self._size:
                raise IndexError(
                    'SubDataset: index {} out of range for length {}'.format(
                        i, self._size))
            index = self._start + i
        else:
            if i < -self._size:
                raise IndexError(
                    'SubDataset: index {} out of range for length {}'.format(
                        i, self._size))
            index = self._finish + i
        if self._order is not None:
            index = self._order[index]
        return self._dataset[index]


def split_dataset(dataset, split_at, order=None):
    """Split a dataset into two ``SubDataset``\\ s at ``split_at``.

    The first holds the examples ``order[:split_at]`` (``[:split_at]``
    without ``order``), the second the rest.

    Returns:
        tuple: ``(first, second)``.
    """
    split_at = _as_int(split_at, 'split_dataset', 'split_at')
    n = len(dataset)
    if split_at < 0:
        raise ValueError(
            'split_dataset: split_at must be non-negative, got {}'.format(
                split_at))
    if split_at > n:
        raise ValueError(
            'split_dataset: split_at ({}) exceeds the dataset size ({})'.format(
                split_at, n))
    return (SubDataset(dataset, 0, split_at, order),
            SubDataset(dataset, split_at, n, order))


def split_dataset_random(dataset, first_size, seed=None):
    """Split a dataset into two ``SubDataset``\\ s at random.

    The first holds ``first_size`` examples drawn without replacement, the
    second the rest.  The permutation is
    ``numpy.random.RandomState(seed).permutation(len(dataset))``, so the
    same ``seed`` gives the same split (as in Chainer).
    """
    order = numpy.random.RandomState(seed).permutation(len(dataset))
    return split_dataset(dataset, first_size, order)


def split_dataset_n(dataset, n, order=None):
    """Split a dataset into ``n`` ``SubDataset``\\ s of equal size.

    The ``i``-th holds ``order[i * m:(i + 1) * m]`` with
    ``m = len(dataset) // n``; the last ``len(dataset) % n`` examples are in
    none of them.
    """
    n = _as_int(n, 'split_dataset_n', 'n')
    if n <= 0:
        raise ValueError(
            'split_dataset_n: n must be positive, got {}'.format(n))
    size = len(dataset) // n
    return [SubDataset(dataset, size * i, size * (i + 1), order)
            for i in range(n)]


def split_dataset_n_random(dataset, n, seed=None):
    """``split_dataset_n`` over a random permutation drawn from ``seed``."""
    order = numpy.random.RandomState(seed).permutation(len(dataset))
    return split_dataset_n(dataset, n, order)


def get_cross_validation_datasets(dataset, n_fold, order=None):
    """``n_fold`` (train, test) splits for cross validation.

    The test sets are disjoint, cover the whole dataset and differ in size
    by at most one; each train set is the complement of its test set.  The
    folds come in Chainer's order: the first test set is the tail of
    ``order``, and each next one the block just before it.  The train set
    of a fold lists the examples following its test set (wrapping around).

    Returns:
        list of tuples: ``n_fold`` pairs ``(train, test)`` of
        ``SubDataset``.
    """
    n_fold = _as_int(n_fold, 'get_cross_validation_datasets', 'n_fold')
    whole = len(dataset)
    if not 0 < n_fold <= max(whole, 1):
        raise ValueError(
            'get_cross_validation_datasets: n_fold must be between 1 and the '
            'dataset size ({}), got {}'.format(whole, n_fold))
    order = numpy.arange(whole) if order is None else numpy.array(order)
    borders = [whole * i // n_fold for i in range(n_fold + 1)]
    splits = []
    # Fold k tests on the k-th block from the end; rotating the order so
    # that block sits last keeps each train set contiguous in the order.
    shift = 0
    for k in reversed(range(n_fold)):
        test_size = borders[k + 1] - borders[k]
        rotated = numpy.roll(order, shift)
        splits.append(split_dataset(dataset, whole - test_size, rotated))
        shift += test_size
    return splits


def get_cross_validation_datasets_random(dataset, n_fold, seed=None):
    """``get_cross_validation_datasets`` over a random permutation drawn from
    ``numpy.random.RandomState(seed)``."""
    order = numpy.random.RandomState(seed).permutation(len(dataset))
    return get_cross_validation_datasets(dataset, n_fold, order)
