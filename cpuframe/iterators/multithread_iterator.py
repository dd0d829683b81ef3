"""``MultithreadIterator``: reads the examples of the next batch in worker
threads while the current batch is used."""
from concurrent import futures

from cpuframe.iterators._base import positive_int
from cpuframe.iterators._prefetch import PrefetchIterator


class MultithreadIterator(PrefetchIterator):
    """Dataset iterator that loads examples with a pool of threads.

    It yields exactly the batches ``SerialIterator`` would (same order,
    epochs and ``epoch_detail``), but the examples of the next batch are
    read by ``n_threads`` threads while the current one is in use.  Threads
    suit datasets whose reading releases the GIL (file I/O, image decoding,
    NumPy).  Call ``finalize()`` (or use ``with``) to stop the threads.

    Args:
        dataset: The dataset.
        batch_size (int): Number of examples in each batch.
        repeat (bool): Loop over the dataset indefinitely.
        shuffle (bool): As in ``SerialIterator``.
        n_threads (int): Number of worker threads.
        order_sampler (callable): As in ``SerialIterator``.
    """

    # Chainer's MultithreadIterator saves its order under '_order'.
    _order_key = '_order'

    def __init__(self, dataset, batch_size, repeat=True, shuffle=None,
                 n_threads=1, order_sampler=None):
        super().__init__(dataset, batch_size, repeat, shuffle, order_sampler)
        self.n_threads = positive_int(
            n_threads, 'MultithreadIterator', 'n_threads')
        self._executor = None
        self._init_prefetch()
        self.reset()

    def _submit(self, indices):
        if self._executor is None:
            self._executor = futures.ThreadPoolExecutor(
                max_workers=self.n_threads,
                thread_name_prefix='MultithreadIterator')
        getitem = self.dataset.__getitem__
        return [self._executor.submit(getitem, index) for index in indices]

    def _collect(self, handle):
        return [f.result() for f in handle]

    def _cancel(self, handle):
        for f in handle:
            f.cancel()

    def _shutdown(self):
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)
