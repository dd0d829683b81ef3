"""Snapshot writers: how ``snapshot`` puts a serialized target on disk.

A writer is called as ``writer(filename, outdir, target)`` where
``target`` is the serialized object (a dict of arrays, already detached
from the live model).  ``SimpleWriter`` writes at once; ``ThreadWriter``
and ``ProcessWriter`` write in a background thread / process so training
goes on meanwhile (one write at a time); the queue writers hand snapshots
to one long-lived consumer thread / process.
"""
import multiprocessing
import os
import queue
import threading

from cpuframe import _atomic_write
from cpuframe.serializers import npz


class _SerializedTarget:
    """A dict of arrays that replays itself through the serialize
    protocol, so any ``savefun(path, obj)`` can write it."""

    def __init__(self, target):
        self.target = target

    def serialize(self, serializer):
        for key, value in self.target.items():
            serializer(key, value)


class Writer:
    """Base class of snapshot writers.

    ``save`` writes ``target`` with ``savefun`` to a temporary file in
    ``outdir`` and renames it to ``filename``, so a crash never leaves a
    half-written snapshot under the final name.  Cleanup hooks (added by
    ``snapshot(n_retains=...)``) run after each snapshot.
    """

    def __init__(self, savefun=npz.save_npz):
        self._savefun = savefun
        self._post_save_hooks = []

    def __call__(self, filename, outdir, target):
        raise NotImplementedError(
            '{}: a snapshot writer must implement __call__'.format(
                type(self).__name__))

    def save(self, filename, outdir, target, savefun=None, **kwds):
        savefun = self._savefun if savefun is None else savefun
        os.makedirs(outdir, exist_ok=True)
        obj = _SerializedTarget(target) if isinstance(target, dict) \
            else target
        _atomic_write.write_atomically(os.path.join(outdir, filename),
                                       lambda tmp: savefun(tmp, obj, **kwds))
        for hook in self._post_save_hooks:
            hook()

    def _add_cleanup_hook(self, hook):
        self._post_save_hooks.append(hook)

    def finalize(self):
        """Wait for pending writes (nothing to wait for by default)."""


class SimpleWriter(Writer):
    """Writes each snapshot synchronously; ``kwds`` go to ``savefun``."""

    def __init__(self, savefun=npz.save_npz, **kwds):
        super().__init__(savefun)
        self._kwds = kwds

    def __call__(self, filename, outdir, target):
        self.save(filename, outdir, target, self._savefun, **self._kwds)


class StandardWriter(Writer):
    """Base of the writers that start a worker (thread or process) per
    snapshot.  A new snapshot, and ``finalize``, first wait for the
    previous worker.  Subclasses define ``create_worker``."""

    def __init__(self, savefun=npz.save_npz, **kwds):
        super().__init__(savefun)
        self._kwds = kwds
        self._worker = None
        self._started = False
        self._finalized = False

    def __call__(self, filename, outdir, target):
        if self._started:
            self._worker.join()
            self._started = False
        self._filename = filename
        self._worker = self.create_worker(filename, outdir, target,
                                          **self._kwds)
        self._worker.start()
        self._started = True

    def create_worker(self, filename, outdir, target, **kwds):
        """A not-yet-started worker (with ``start`` and ``join``) that
        saves ``target`` as ``outdir/filename``."""
        raise NotImplementedError

    def finalize(self):
        if self._started:
            if not self._finalized:
                self._worker.join()
            self._started = False
        self._finalized = True


class ThreadWriter(StandardWriter):
    """Writes each snapshot in a new thread."""

    def create_worker(self, filename, outdir, target, **kwds):
        return threading.Thread(
            target=self.save, args=(filename, outdir, target, self._savefun),
            kwargs=kwds, daemon=True)


class ProcessWriter(StandardWriter):
    """Writes each snapshot in a new process (beware of forking from an
    MPI process; prefer ThreadWriter there)."""

    def create_worker(self, filename, outdir, target, **kwds):
        return multiprocessing.Process(
            target=self.save, args=(filename, outdir, target, self._savefun),
            kwargs=kwds)


class QueueWriter(Writer):
    """Base of the writers that put snapshots into a queue drained by one
    consumer started at construction.

    Each queued item is run by ``task`` (by default a ``SimpleWriter`` of
    ``savefun``), called like a writer.  ``finalize`` stops the consumer
    after the queue is drained.  Subclasses define ``create_queue`` and
    ``create_consumer``.
    """

    def __init__(self, savefun=npz.save_npz, task=None):
        super().__init__(savefun)
        self._task = self.create_task(savefun) if task is None else task
        self._queue = self.create_queue()
        self._consumer = self.create_consumer(self._queue)
        self._consumer.start()
        self._started = True
        self._finalized = False

    def __call__(self, filename, outdir, target):
        self._queue.put([self._task, filename, outdir, target])

    def create_task(self, savefun):
        return SimpleWriter(savefun=savefun)

    def create_queue(self):
        raise NotImplementedError

    def create_consumer(self, q):
        raise NotImplementedError

    def consume(self, q):
        while True:
            task = q.get()
            if task is None:
                q.task_done()
                return
            task[0](task[1], task[2], task[3])
            q.task_done()

    def finalize(self):
        if self._started:
            if not self._finalized:
                self._queue.put(None)
                self._queue.join()
                self._consumer.join()
            self._started = False
        self._finalized = True


class ThreadQueueWriter(QueueWriter):
    """A QueueWriter whose consumer is a thread."""

    def create_queue(self):
        return queue.Queue()

    def create_consumer(self, q):
        return threading.Thread(target=self.consume, args=(q,), daemon=True)


class ProcessQueueWriter(QueueWriter):
    """A QueueWriter whose consumer is a process (beware of forking from
    an MPI process)."""

    def create_queue(self):
        return multiprocessing.JoinableQueue()

    def create_consumer(self, q):
        return multiprocessing.Process(target=self.consume, args=(q,))
