"""Dataset iterators, as in ``chainer.iterators``: ``SerialIterator``,
``MultithreadIterator`` and ``MultiprocessIterator`` (the same batches,
read in the main thread, in threads or in processes) and the order
samplers."""
from cpuframe.iterators.multiprocess_iterator import (  # noqa: F401
    MultiprocessIterator,
)
from cpuframe.iterators.multithread_iterator import (  # noqa: F401
    MultithreadIterator,
)
from cpuframe.iterators.order_samplers import (  # noqa: F401
    OrderSampler,
    ShuffleOrderSampler,
)
from cpuframe.iterators.serial_iterator import SerialIterator  # noqa: F401

__all__ = ['MultiprocessIterator', 'MultithreadIterator', 'OrderSampler',
           'SerialIterator', 'ShuffleOrderSampler']
