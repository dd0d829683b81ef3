"""``SerialIterator``: reads the examples of each batch in the calling
thread."""
from cpuframe.iterators._base import StateIterator
from cpuframe.iterators._statemachine import iterator_statemachine


class SerialIterator(StateIterator):
    """Dataset iterator that reads the examples one by one in the main
    thread.

    Batches are lists of ``batch_size`` examples taken in the order of
    indexes or of a shuffled order.  With ``repeat``, the last batch of an
    epoch is filled up with the first examples of the next epoch (in the
    next epoch's order), so every batch is full; without it, the last batch
    may be short and the iteration then stops.

    Args:
        dataset: The dataset (anything with ``__len__`` and
            ``__getitem__``).
        batch_size (int): Number of examples in each batch.
        repeat (bool): Loop over the dataset indefinitely.
        shuffle (bool): Shuffle the order at the start of each epoch; with
            ``None`` (the default) the ``order_sampler`` decides, and
            without one the order is shuffled.
        order_sampler (callable): ``order_sampler(order, position)`` gives
            the next epoch's order (see ``ShuffleOrderSampler``); only
            with ``shuffle=None``.

    >>> it = SerialIterator([0, 1, 2, 3, 4], 2, shuffle=False)
    >>> next(it), next(it), next(it), it.epoch
    ([0, 1], [2, 3], [4, 0], 1)
    """

    def __init__(self, dataset, batch_size, repeat=True, shuffle=None,
                 order_sampler=None):
        super().__init__(dataset, batch_size, repeat, shuffle, order_sampler)
        self.reset()

    def __next__(self):
        self._previous_epoch_detail = self.epoch_detail
        self._state, indices = iterator_statemachine(
            self._state, self.batch_size, self._repeat, self.order_sampler,
            len(self.dataset))
        if indices is None:
            raise StopIteration
        dataset = self.dataset
        return [dataset[index] for index in indices]

    next = __next__
