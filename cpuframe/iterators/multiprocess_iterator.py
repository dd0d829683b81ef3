"""``MultiprocessIterator``: reads the examples of the next batches in
worker processes."""
import multiprocessing
import operator
import sys
import warnings
from concurrent import futures
from concurrent.futures import process

from cpuframe.iterators._base import positive_int
from cpuframe.iterators._prefetch import PrefetchIterator

# The dataset of this worker process (set by the pool's initializer).
_worker_dataset = None


def _worker_init(dataset):
    global _worker_dataset
    _worker_dataset = dataset


def _worker_fetch(indices):
    return [_worker_dataset[index] for index in indices]


class MultiprocessIterator(PrefetchIterator):
    """Dataset iterator that loads examples with a pool of processes.

    It yields exactly the batches ``SerialIterator`` would (same order,
    epochs and ``epoch_detail``; the order sampler runs in the main
    process), while up to ``n_prefetch`` next batches are read by
    ``n_processes`` worker processes.  The dataset is given to the workers
    when they start (inherited with the ``fork`` start method, pickled with
    the others); examples come back pickled.  A worker that dies (killed,
    out of memory) makes ``next`` raise instead of waiting forever.  Call
    ``finalize()`` (or use ``with``) to stop the workers.

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
        maxtasksperchild (int): Number of chunks of examples a worker reads
            before it is replaced by a fresh process; None for no limit.
            Needs Python 3.11 and a start method other than ``fork`` (the
            ``spawn`` method is used), so the dataset must pickle.
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
            if n_processes is None else positive_int(
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
        if maxtasksperchild is not None:
            maxtasksperchild = positive_int(
                maxtasksperchild, cls, 'maxtasksperchild')
            if sys.version_info < (3, 11):
                raise ValueError(
                    '{}: maxtasksperchild needs Python 3.11 or later'.format(
                        cls))
        self.maxtasksperchild = maxtasksperchild
        self._executor = None
        self._init_prefetch()
        self.reset()

    @property
    def _n_prefetch(self):
        return self.n_prefetch

    def _start_executor(self):
        kwargs = {}
        if self.maxtasksperchild is None:
            context = multiprocessing.get_context()
        else:
            # Replacing workers is incompatible with fork in
            # concurrent.futures.
            context = multiprocessing.get_context('spawn')
            kwargs['max_tasks_per_child'] = self.maxtasksperchild
        return futures.ProcessPoolExecutor(
            self.n_processes, mp_context=context, initializer=_worker_init,
            initargs=(self.dataset,), **kwargs)

    def _submit(self, indices):
        if self._executor is None:
            self._executor = self._start_executor()
        indices = [int(i) for i in indices]
        size = max(len(indices) // (self.n_processes * 2), 1)
        handle = []
        for i in range(0, len(indices), size):
            try:
                handle.append(
                    self._executor.submit(_worker_fetch, indices[i:i + size]))
            except process.BrokenProcessPool as e:
                # Reported when this batch is collected, not while the
                # previous (good) batch is being returned.
                failed = futures.Future()
                failed.set_exception(e)
                handle.append(failed)
                break
        return handle

    def _collect(self, handle):
        batch = []
        warned = False
        for future in handle:
            while True:
                try:
                    batch.extend(future.result(self.dataset_timeout))
                    break
                except futures.TimeoutError:
                    if not warned:
                        warnings.warn(
                            'MultiprocessIterator: reading a batch has taken '
                            'more than {} s; the dataset may be stalled (a '
                            'deadlock in a worker process, e.g. in a library '
                            'that does not survive fork, or a slow file '
                            'system). Still waiting.'.format(
                                self.dataset_timeout),
                            MultiprocessIterator.TimeoutWarning,
                            stacklevel=3)
                        warned = True
                except process.BrokenProcessPool as e:
                    self._drop_plans()
                    self._shutdown()
                    raise RuntimeError(
                        'MultiprocessIterator: a worker process died while '
                        'reading the dataset (killed, out of memory, or a '
                        'crash in native code); the batch is lost') from e
        return batch

    def _cancel(self, handle):
        for future in handle:
            future.cancel()

    def _shutdown(self):
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)
