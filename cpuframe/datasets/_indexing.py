"""Indexing shared by the datasets that wrap other datasets."""
import numpy


def is_batch_index(index):
    """True for the indexes that select several examples."""
    return isinstance(index, (slice, list, numpy.ndarray))


def take(dataset, index):
    """``dataset[index]``; a list or array index on a plain sequence (a
    Python list, which takes no list index) gives the list of examples."""
    if isinstance(index, (list, numpy.ndarray)) and \
            isinstance(dataset, (list, tuple, range)):
        return [dataset[int(i)] for i in index]
    return dataset[index]
