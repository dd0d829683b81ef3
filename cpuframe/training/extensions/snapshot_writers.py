"""Snapshot writers: how ``snapshot`` puts a serialized target on disk.

A writer is called as ``writer(filename, outdir, target)`` where
``target`` is the serialized object (a dict of arrays, already detached
from the live model).  ``SimpleWriter`` writes at once; ``ThreadWriter``
writes in a background thread so training goes on meanwhile.
"""
import os
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

    def save(self, filename, outdir, target, savefun=None):
        savefun = self._savefun if savefun is None else savefun
        os.makedirs(outdir, exist_ok=True)
        obj = _SerializedTarget(target) if isinstance(target, dict) \
            else target
        _atomic_write.write_atomically(os.path.join(outdir, filename),
                                       lambda tmp: savefun(tmp, obj))
        for hook in self._post_save_hooks:
            hook()

    def _add_cleanup_hook(self, hook):
        self._post_save_hooks.append(hook)

    def finalize(self):
        """Wait for pending writes (nothing to wait for by default)."""


class SimpleWriter(Writer):
    """Writes each snapshot synchronously."""

    def __call__(self, filename, outdir, target):
        self.save(filename, outdir, target)


class ThreadWriter(Writer):
    """Writes each snapshot in a new thread; the next snapshot (and
    ``finalize``) waits for the previous write to finish."""

    def __init__(self, savefun=npz.save_npz):
        super().__init__(savefun)
        self._thread = None

    def __call__(self, filename, outdir, target):
        self.finalize()
        self._thread = threading.Thread(
            target=self.save, args=(filename, outdir, target), daemon=True)
        self._thread.start()

    def finalize(self):
        if self._thread is not None:
            self._thread.join()
            self._thread = None
