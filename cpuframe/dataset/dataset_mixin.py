"""``DatasetMixin``: indexing by int, slice or index list on top of
``get_example``."""
import numpy


class DatasetMixin:
    """Default indexing for a dataset that defines ``get_example``.

    A subclass implements ``__len__`` and ``get_example(i)``; this mixin
    provides ``__getitem__`` so that ``ds[i]`` returns one example and
    ``ds[1:3]``, ``ds[[4, 0]]`` or ``ds[numpy.arange(3)]`` return a list of
    examples.

    >>> class Squares(DatasetMixin):
    ...     def __len__(self):
    ...         return 5
    ...     def get_example(self, i):
    ...         return i * i
    >>> Squares()[1:4]
    [1, 4, 9]
    """

    def __getitem__(self, index):
        """One example for an integer index, a list of them otherwise."""
        if isinstance(index, slice):
            return [self.get_example(i)
                    for i in range(*index.indices(len(self)))]
        if isinstance(index, (list, numpy.ndarray)):
            return [self.get_example(i) for i in index]
        return self.get_example(index)

    def __len__(self):
        """The number of examples."""
        raise NotImplementedError(
            '{}: a DatasetMixin subclass must implement __len__'.format(
                type(self).__name__))

    def get_example(self, i):
        """The ``i``-th example; raise ``IndexError`` when out of range."""
        raise NotImplementedError(
            '{}: a DatasetMixin subclass must implement get_example'.format(
                type(self).__name__))
