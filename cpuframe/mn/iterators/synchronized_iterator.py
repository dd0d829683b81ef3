"""``create_synchronized_iterator``: every rank shuffles in the same order."""
import numpy

from cpuframe.dataset import iterator as iterator_module
from cpuframe.iterators.order_samplers import ShuffleOrderSampler


class _SynchronizedIterator(iterator_module.Iterator):

    def __init__(self, actual_iterator, communicator):
        if not hasattr(actual_iterator, 'order_sampler'):
            raise ValueError(
                'create_synchronized_iterator: actual_iterator must have an '
                'order_sampler (SerialIterator, MultithreadIterator and '
                'MultiprocessIterator do), got {}'.format(
                    type(actual_iterator).__name__))
        object.__setattr__(self, 'actual_iterator', actual_iterator)
        object.__setattr__(self, 'communicator', communicator)
        seed = None
        if communicator.rank == 0:
            seed = int(numpy.random.randint(0, 2 ** 32 - 1, dtype=numpy.int64))
        seed = communicator.bcast_obj(seed, root=0)
        actual_iterator.order_sampler = ShuffleOrderSampler(
            numpy.random.RandomState(seed))
        actual_iterator.reset()

    def __getattr__(self, name):
        if name == 'actual_iterator':   # not set yet (copy, unpickling)
            raise AttributeError(name)
        return getattr(self.actual_iterator, name)

    def __setattr__(self, name, value):
        setattr(self.actual_iterator, name, value)

    def __next__(self):
        return next(self.actual_iterator)

    next = __next__

    def reset(self):
        self.actual_iterator.reset()

    def finalize(self):
        finalize = getattr(self.actual_iterator, 'finalize', None)
        if finalize is not None:
            finalize()

    def serialize(self, serializer):
        self.actual_iterator.serialize(serializer)


def create_synchronized_iterator(actual_iterator, communicator):
    """``actual_iterator`` shuffling in the same order on every rank.

    Rank 0 draws a seed and broadcasts it; every rank's iterator then
    shuffles with ``ShuffleOrderSampler(RandomState(seed))`` (replacing its
    order sampler) and is reset.  With the same dataset on every rank the
    batches are the same and no data moves between ranks (compare
    :func:`create_multi_node_iterator`).  Call it on every rank.

    Args:
        actual_iterator: an iterator with an ``order_sampler`` (e.g.
            ``SerialIterator(dataset, batch_size, shuffle=True)``).
        communicator: a cpuframe.mn communicator.
    """
    return _SynchronizedIterator(actual_iterator, communicator)
