"""``Iterator``: the base class of dataset iterators."""


class Iterator:
    """Base class of the iterators that yield minibatches from a dataset.

    A minibatch is a list of examples.  Implementations provide
    ``batch_size``, ``epoch`` (completed sweeps), ``epoch_detail`` (the
    epoch as a float, 2.5 in the middle of the third sweep),
    ``previous_epoch_detail`` (``epoch_detail`` before the last batch, or
    ``None`` before the first one) and ``is_new_epoch`` (whether the last
    batch completed a sweep), plus ``serialize`` so a snapshot can resume
    them.
    """

    def __iter__(self):
        return self

    def __next__(self):
        """The next minibatch; may raise ``StopIteration``."""
        raise NotImplementedError(
            '{}: an Iterator subclass must implement __next__'.format(
                type(self).__name__))

    def next(self):
        """Alias of ``__next__``."""
        return self.__next__()

    def finalize(self):
        """Release the iterator's resources (threads, processes)."""

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self.finalize()

    def serialize(self, serializer):
        """Save or load the state that changes while iterating.

        What the user set (``batch_size``, the dataset) is not serialized.
        """
