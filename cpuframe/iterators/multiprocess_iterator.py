"""``MultiprocessIterator``: reads the examples of the next batches in
worker processes."""
import multiprocessing
import operator
import warnings

from cpuframe.iterators._base import _positive_int
from cpuframe.iterators._prefetch import _PrefetchIterator

# The dataset of this worker process (set by the pool's initializer).
_worker_dataset = None


def _worker_init(dataset):
    global _worker_dataset
    _worker_dataset = dataset


def _worker_fetch(index):
    return _worker_dataset[index]


class MultiprocessIterator(_PrefetchIterator):
    """Dataset iterator that loads examples with a pool of processes.

    It yields exactly the batches ``SerialIterator`` would (same order,
    epochs and ``epoch_detail``; the order sampler runs in the main
    process), while up to ``n_prefetch`` next batches are read by
    ``n_processes`` worker processes.  The dataset is given to the workers
    when they start (inherited on ``fork``, pickled otherwise); examples
    come back pickled.  Call ``finalize()`` (or use ``with``) to stop the
    workers.

    Args:
        dataset: The dataset.
        batch_size (int): Number of examples in each batch.
        repeat (bool): Loop over the dataset indefinitely.
        shuffle (bool): As in ``SerialIterator``.
        n_processes (int): Number of worker processes; the number of CPUs
            when None.
        n_prefetch (int): Number of batches fetched ahead.
        shared_mem (int): Accepted for compatibility; examples are passed
            back by pickling, so no shared memory needs sizing.
        order_sampler (callable): As in ``SerialIterator``.
        dataset_timeout (float): Seconds a batch may take before a
            ``MultiprocessIterator.TimeoutWarning`` reports a stalled
            dataset (the iterator keeps waiting); None disables it.
        maxtasksperchild (int): Examples a worker reads before it is
            replaced by a fresh process; None for no limit.
    """

    class TimeoutWarning(RuntimeWarning):
        """Reading a batch takes longer than ``dataset_timeout``."""

    def __init__(self, dataset, batch_size, repeat=True, shuffle=None,
                 n_processes=None, n_prefetch=1, shared_mem=None,
                 order_sampler=None, dataset_timeout=30.0,
                 maxtasksperchild=None):
        super().__init__(dataset, batch_size, repeat, shuffle, order_sampler)
        cls = 'MultiprocessIterator'
        self.n_processes = multiprocessing.cpu_count() \
            if n_processes is None else _positive_int(
                n_processes, cls, 'n_processes')
        self.n_prefetch = max(operator.index(n_prefetch), 1)
        if shared_mem is not None and operator.index(shared_mem) < 0:
            raise ValueError('{}: shared_mem must be non-negative, got '
                             '{}'.format(cls, shared_mem))
        self.shared_mem = shared_mem
        if dataset_timeout is not None and dataset_timeout <= 0:
            raise ValueError('{}: dataset_timeout must be positive or None, '
                             'got {}'.format(cls, dataset_timeout))
        self.dataset_timeout = dataset_timeout
        self.maxtasksperchild = None if maxtasksperchild is None else \
            _positive_int(maxtasksperchild, cls, 'maxtasksperchild')
        self._pool = None
        self._init_prefetch()
        self.reset()

    @property
    def _n_prefetch(self):
        return self.n_prefetch

    def _submit(self, indices):
        if self._pool is None:
            self._pool = multiprocessing.get_context().Pool(
                self.n_processes, initializer=_worker_init,
                initargs=(self.dataset,),
                maxtasksperchild=self.maxtasksperchild)
        chunksize = max(len(indices) // (self.n_processes * 2), 1)
        return self._pool.map_async(
            _worker_fetch, [int(i) for i in indices], chunksize)

    def _collect(self, handle):
        if self.dataset_timeout is None:
            return handle.get()
        warned = False
        while True:
            try:
                return handle.get(self.dataset_timeout)
            except multiprocessing.TimeoutError:
                if not warned:
                    warnings.warn(
                        'MultiprocessIterator: reading a batch has taken '
                        'more than {} s; the dataset may be stalled (a '
                        'deadlock in a worker process, e.g. a library that '
                        'does not survive fork, or a slow file system). '
                        'Still waiting.'.format(self.dataset_timeout),
                        MultiprocessIterator.TimeoutWarning, stacklevel=3)
                    warned = True

    def _cancel(self, handle):
        pass  # a pool job cannot be cancelled; its result is ignored

    def _shutdown(self):
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.terminate()
            pool.join()
