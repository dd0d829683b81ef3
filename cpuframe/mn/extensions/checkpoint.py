"""``create_multi_node_checkpointer``: generational per-rank checkpoints."""
import os
import time
import warnings

from cpuframe.serializers import npz
from cpuframe.training import extension


def create_multi_node_checkpointer(name, comm, cp_interval=5, gc_interval=5,
                                   path=None):
    """A checkpointer that keeps recent per-rank snapshots and resumes from
    the newest iteration every rank has.

    Every rank saves its own snapshot as ``<name>.<rank>.<iteration>`` (in
    ``path``, or the trainer's ``out`` directory), written to a temporary
    file and renamed, so a killed process never leaves a partial file under
    that name.  When ``gc_interval`` snapshots beyond the ``cp_interval``
    newest have piled up, the ranks agree on the iterations every rank has
    and each removes its other files, keeping the ``cp_interval`` newest
    common ones.

    Use it as a trainer extension (on every rank, with the same trigger)::

        checkpointer = create_multi_node_checkpointer(name=run_id, comm=comm)
        trainer.extend(checkpointer, trigger=(25, 'iteration'))
        checkpointer.maybe_load(trainer, optimizer)
        trainer.run()

    ``maybe_load`` (call it after every extension with a state is added)
    finds the newest iteration for which every rank has a snapshot and
    loads it, so the run continues from there; without one the trainer is
    left as it was (``updater.iteration`` stays 0).  Without a trainer,
    ``save(obj, iteration)`` and ``maybe_load(obj)`` work on any object
    with ``serialize``.  ``finalize`` (run when the training ends) removes
    this rank's snapshots.

    Deprecated in ChainerMN 7 in favour of :func:`multi_node_snapshot`.

    Args:
        name (str): the run's identifier (file name prefix).
        comm: a cpuframe.mn communicator.
        cp_interval (int): how many common snapshots to keep at least.
        gc_interval (int): how many more may pile up before old ones are
            removed.
        path (str): the directory (the trainer's ``out`` when None).
    """
    warnings.warn('Checkpointer is deprecated. '
                  'Use chainermn.extensions.multi_node_snapshot instead.',
                  DeprecationWarning, stacklevel=2)
    return _MultiNodeCheckpointer(name, comm, cp_interval, gc_interval, path)


class _CheckpointStats:
    def __init__(self):
        self.timings = []
        self.begin = None

    def start(self):
        self.begin = time.time()

    def end(self):
        if self.begin is None:
            return
        end = time.time()
        self.timings.append({'b': self.begin, 'd': end - self.begin})
        self.begin = None

    def report(self):
        if not self.timings:
            return 'No stats available'
        durations = [t['d'] for t in self.timings]
        return ('Snapshot duration stats (sec): avg={:f}, min={:f}, max={:f}'
                .format(sum(durations) / len(durations), min(durations),
                        max(durations)))


def _positive_int(caller, what, value):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError('{}: expected {} as a positive int, got {!r}'.format(
            caller, what, value))
    return value


class _MultiNodeCheckpointer(extension.Extension):

    def __init__(self, name, comm, cp_interval, gc_interval, path):
        caller = 'create_multi_node_checkpointer'
        if not isinstance(name, str) or not name:
            raise ValueError('{}: expected name as a non-empty str, got {!r}'
                             .format(caller, name))
        if os.sep in name:
            raise ValueError('{}: name {!r} must not contain {!r} (use path '
                             'for the directory)'.format(caller, name, os.sep))
        if comm is None:
            raise ValueError('{}: expected a communicator, got None'.format(
                caller))
        self.name = name
        self.comm = comm
        self.cp_interval = _positive_int(caller, 'cp_interval', cp_interval)
        self.gc_interval = _positive_int(caller, 'gc_interval', gc_interval)
        self.files = []
        self.stats = _CheckpointStats()
        self.path = None
        if path is not None:
            self.path = os.fspath(path)
            os.makedirs(self.path, exist_ok=True)

    def __call__(self, trainer):
        # Called at the same iterations on every rank (same trigger).
        if self.path is None:
            self.path = trainer.out
        self.save(trainer, trainer.updater.iteration)

    def save(self, target, iteration):
        """Save this rank's snapshot of ``target`` for ``iteration``; every
        rank must call it at the same iterations."""
        if self.path is None:
            raise ValueError('checkpointer.save: no directory: give path to '
                             'create_multi_node_checkpointer (or use it as a '
                             'trainer extension)')
        filename = self._filename(iteration)
        os.makedirs(self.path, exist_ok=True)
        self.stats.start()
        npz.save_npz(os.path.join(self.path, filename), target)
        self.stats.end()
        if filename not in self.files:
            self.files.append(filename)
        if len(self.files) - self.cp_interval >= self.gc_interval:
            self._sync_file_list(remove_remainder=True)

    def finalize(self):
        """Remove this rank's snapshots (the training ended normally)."""
        if self.path is None:
            return
        for filename in self.files:
            try:
                os.remove(os.path.join(self.path, filename))
            except OSError:
                pass
        self.files = []

    def get_stats(self):
        """Timing statistics of the snapshots saved so far (a string)."""
        return self.stats.report()

    def _sync_file_list(self, remove_remainder=False):
        mine = sorted(i for i in (self._iteration_of(f) for f in self.files)
                      if i is not None)
        every = self.comm.gather_obj(mine, root=0)
        common = None
        if self.comm.rank == 0:
            common = set(every[0])
            for iterations in every[1:]:
                common &= set(iterations)
            common = sorted(common)[-self.cp_interval:]
        common = self.comm.bcast_obj(common, root=0)
        keep = [self._filename(i) for i in common]
        if remove_remainder:
            for filename in set(self.files) - set(keep):
                try:
                    os.remove(os.path.join(self.path, filename))
                except OSError:
                    pass
        self.files = keep

    def _filename(self, iteration):
        return '{}.{}.{}'.format(self.name, self.comm.rank, int(iteration))

    def _parse_filename(self, filename):
        """``(name, rank, iteration)`` of one of our file names, else None."""
        parts = filename.rsplit('.', 2)
        if len(parts) != 3 or parts[0] != self.name:
            return None
        try:
            return parts[0], int(parts[1]), int(parts[2])
        except ValueError:
            return None

    def _parse_filenames(self, filenames):
        return [self._parse_filename(f) for f in filenames]

    def _iteration_of(self, filename):
        parsed = self._parse_filename(filename)
        return None if parsed is None else parsed[2]

    def maybe_load(self, trainer, optimizer=None, path=None):
        """Load the newest snapshot every rank has, if any (call on every
        rank).  ``optimizer`` (a multi-node optimizer) is told not to
        broadcast rank 0's parameters, since every rank resumes complete."""
        if self.path is None:
            self.path = os.fspath(path) if path is not None else trainer.out
        try:
            local_files = os.listdir(self.path)
        except OSError:
            local_files = []     # this rank has no directory yet
        rank = self.comm.rank
        iterations = sorted(
            parsed[2] for parsed in self._parse_filenames(local_files)
            if parsed is not None and parsed[1] == rank)
        self.files = [self._filename(i) for i in iterations]
        self._sync_file_list()
        iterations = [self._iteration_of(f) for f in self.files]
        if not iterations:
            return
        latest = max(iterations)
        error = None
        try:
            npz.load_npz(os.path.join(self.path, self._filename(latest)),
                         trainer)
        except Exception as e:  # noqa: BLE001 - every rank must learn of it
            error = e
        failed = self.comm.gather_obj(
            None if error is None else '{}: {}'.format(type(error).__name__,
                                                       error), root=0)
        if self.comm.rank == 0:
            failed = [(r, m) for r, m in enumerate(failed) if m is not None]
        failed = self.comm.bcast_obj(failed, root=0)
        if error is not None:
            raise error
        if failed:
            raise RuntimeError(
                'checkpointer.maybe_load: loading iteration {} failed on rank '
                '{}: {}'.format(latest, *failed[0]))
        if optimizer is not None:
            optimizer.__setattr__('needs_broadcast', False)
