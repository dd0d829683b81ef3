"""snapshot and snapshot_object: save the trainer (or any object) to npz."""
import os
import re

import numpy

from cpuframe import backend, configuration
from cpuframe.serializers import npz
from cpuframe.training import extension
from cpuframe.training.extensions import snapshot_writers


def _natural_key(name):
    # 'snapshot_iter_10' after 'snapshot_iter_9' when mtimes tie (file
    # times are only as fine as the kernel's clock tick)
    return [(0, int(part), '') if part.isdigit() else (1, 0, part)
            for part in re.split(r'(\d+)', name)]


def _find_snapshot_files(fmt, path):
    """``(mtime, name)`` of the files in ``path`` whose names match the
    prefix and suffix of the format string ``fmt``, oldest first."""
    prefix = fmt.split('{')[0]
    suffix = fmt.split('}')[-1]
    found = []
    for name in os.listdir(path):
        full = os.path.join(path, name)
        if name.startswith(prefix) and name.endswith(suffix) and \
                os.path.isfile(full):
            found.append((os.stat(full).st_mtime_ns, _natural_key(name),
                          name))
    return [(mtime, name) for mtime, _, name in sorted(found)]


def _find_latest_snapshot(fmt, path):
    files = _find_snapshot_files(fmt, path)
    return files[-1][1] if files else None


def _find_stale_snapshots(fmt, path, n_retains):
    files = _find_snapshot_files(fmt, path)
    for _, name in files[:max(len(files) - n_retains, 0)]:
        yield name


def _serialize(target):
    """A flat dict of arrays (copies) holding ``target``'s state."""
    s = npz.DictionarySerializer()
    s.save(target)
    return {k: numpy.array(backend.cpu_device.send(v), copy=True)
            if backend.is_array(v) else v for k, v in s.target.items()}


def _always_true():
    return True


class _Snapshot(extension.Extension):
    """Saves the trainer (or ``target``) as ``out/filename`` when its
    trigger fires.  See ``snapshot``."""

    trigger = 1, 'epoch'
    priority = -100

    def __init__(self, target=None, condition=None, writer=None,
                 filename='snapshot_iter_{.updater.iteration}',
                 snapshot_on_error=False, n_retains=-1, autoload=False):
        self._target = target
        self.filename = filename
        self.condition = _always_true if condition is None else condition
        self.writer = snapshot_writers.SimpleWriter() if writer is None \
            else writer
        self._snapshot_on_error = snapshot_on_error
        self.n_retains = n_retains
        self.autoload = autoload

    def initialize(self, trainer):
        target = trainer if self._target is None else self._target
        outdir = trainer.out
        if self.autoload:
            if not isinstance(self.filename, str):
                raise TypeError(
                    'snapshot: autoload needs filename to be a format '
                    'string, got {}'.format(type(self.filename).__name__))
            name = _find_latest_snapshot(self.filename, outdir) \
                if os.path.isdir(outdir) else None
            if name is None:
                if configuration.is_debug():
                    print('snapshot: no snapshot matching {} in {}'.format(
                        self.filename, outdir))
            else:
                npz.load_npz(os.path.join(outdir, name), target)
                if configuration.is_debug():
                    print('snapshot: loaded', os.path.join(outdir, name))
        add_hook = getattr(self.writer, '_add_cleanup_hook', None)
        if add_hook is not None and self.n_retains > 0 and \
                isinstance(self.filename, str):
            def cleanup():
                for name in _find_stale_snapshots(self.filename, outdir,
                                                  self.n_retains):
                    os.remove(os.path.join(outdir, name))
            add_hook(cleanup)

    def on_error(self, trainer, exc, tb):
        if self._snapshot_on_error:
            self._make_snapshot(trainer)

    def __call__(self, trainer):
        if self.condition():
            self._make_snapshot(trainer)

    def _make_snapshot(self, trainer):
        target = trainer if self._target is None else self._target
        serialized = _serialize(target)
        filename = self.filename
        if callable(filename):
            filename = filename(trainer)
        else:
            filename = filename.format(trainer)
        self.writer(filename, trainer.out, serialized)

    def finalize(self):
        finalize = getattr(self.writer, 'finalize', None)
        if finalize is not None:
            finalize()


def snapshot(savefun=None, filename='snapshot_iter_{.updater.iteration}', *,
             target=None, condition=None, writer=None,
             snapshot_on_error=False, n_retains=-1, autoload=False):
    """An extension saving the trainer, by default once per epoch.

    The trainer is serialized (``updater/model:main/...``,
    ``updater/optimizer:main/...``, ``extensions/...``, ...) and written
    by ``writer`` (default: a ``SimpleWriter`` using ``savefun``,
    ``save_npz`` by default) to ``out/filename``, where ``filename`` is
    formatted with the trainer (``snapshot_iter_1000``) or called with it.
    The file is written to a temporary name and renamed.

    ``target`` saves another object instead of the trainer;
    ``condition()`` returning False skips a snapshot; ``snapshot_on_error``
    also saves when the training loop fails; ``n_retains > 0`` keeps only
    that many newest snapshots; ``autoload`` loads the newest matching
    snapshot in ``out`` when training starts (it must be an npz file).
    ``num_retain`` is not accepted (Chainer's deprecated alias).
    """
    if savefun is not None and writer is not None:
        raise TypeError(
            'snapshot: savefun and writer cannot be given together')
    if writer is None:
        writer = snapshot_writers.SimpleWriter(
            savefun=npz.save_npz if savefun is None else savefun)
    return _Snapshot(target=target, condition=condition, writer=writer,
                     filename=filename, snapshot_on_error=snapshot_on_error,
                     n_retains=n_retains, autoload=autoload)


def snapshot_object(target, filename, savefun=None, **kwargs):
    """An extension saving ``target`` (e.g. the model) to ``out/filename``;
    the other arguments are those of ``snapshot``."""
    return snapshot(target=target, filename=filename, savefun=savefun,
                    **kwargs)
