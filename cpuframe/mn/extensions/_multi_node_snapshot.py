"""``multi_node_snapshot``: snapshots of ranks grouped in replica sets."""
import io
import os

from cpuframe.serializers import npz
from cpuframe.training import extension
from cpuframe.training.extensions._snapshot import _find_latest_snapshot


def multi_node_snapshot(comm, snapshot, replica_sets):
    """Wrap a snapshot extension so that one rank of each replica set saves,
    and on resume loads and hands the state to the rest of its set.

    A replica set is a group of ranks whose snapshot target is the same
    (the trainer of data-parallel ranks without rank-0-only extensions).
    ``replica_sets`` lists sets as a rank (``0``) or an iterable of ranks
    (``range(1, comm.size)``); the ranks not listed form one more set.
    Each set's lowest rank (its master) saves, with ``.<rank>`` appended to
    the snapshot's file name; with ``autoload=True`` each master loads its
    newest snapshot when the training starts and sends the loaded state to
    the other ranks of its set.

    ==================== ===== ============================================
    replica_sets         size  sets
    ==================== ===== ============================================
    ``[0]``              4     ``{0}, {1, 2, 3}``
    ``[0, 1]``           4     ``{0}, {1}, {2, 3}``
    ``[[0, 1], [2, 3]]`` 4     ``{0, 1}, {2, 3}``
    ``[]``               4     ``{0, 1, 2, 3}``
    ``[range(0, 8, 2)]`` 8     ``{0, 2, 4, 6}, {1, 3, 5, 7}``
    ==================== ===== ============================================

    Example (rank 0 alone has LogReport and PrintReport)::

        snapshot = multi_node_snapshot(
            comm, extensions.snapshot(autoload=True), [0])
        trainer.extend(snapshot, trigger=(1, 'epoch'))

    Add it on every rank with the same trigger.  Ranks whose state differs
    (each rank's own shuffled iterator, for instance) belong in sets of
    their own (``[[r] for r in range(comm.size)]``).  The extension takes
    the wrapped snapshot's trigger and priority as its defaults.

    Args:
        comm: a cpuframe.mn communicator.
        snapshot: an extension from ``training.extensions.snapshot`` (or
            ``snapshot_object``).
        replica_sets: the replica sets, as above.
    """
    return _MultiNodeSnapshot(comm, snapshot, replica_sets)


def _parse_replica_sets(replica_sets, size):
    sets = []
    for replica_set in replica_sets:
        members = [replica_set] if isinstance(replica_set, int) \
            else list(replica_set)
        for rank in members:
            if isinstance(rank, bool) or not isinstance(rank, int) or \
                    not 0 <= rank < size:
                raise ValueError('multi_node_snapshot: expected ranks in '
                                 '[0, {}) in replica_sets, got {!r}'.format(
                                     size, rank))
        members = set(members)
        if not members:
            raise ValueError('multi_node_snapshot: a replica set is empty')
        for other in sets:
            if other & members:
                raise ValueError(
                    'multi_node_snapshot: rank(s) {} are in two replica sets'
                    .format(sorted(other & members)))
        sets.append(members)
    listed = set().union(*sets) if sets else set()
    rest = set(range(size)) - listed
    if rest:
        sets.append(rest)
    return sets


class _MultiNodeSnapshot(extension.Extension):

    def __init__(self, comm, snapshot, replica_sets):
        if comm is None or snapshot is None:
            raise ValueError('multi_node_snapshot: expected a communicator '
                             'and a snapshot extension')
        self.comm = comm
        self.snapshot = snapshot
        self.trigger = getattr(snapshot, 'trigger', (1, 'epoch'))
        self.priority = getattr(snapshot, 'priority', self.priority)
        rank = comm.rank
        filename = snapshot.filename
        if callable(filename):
            def filename_of_rank(trainer, _filename=filename):
                return '{}.{}'.format(_filename(trainer), rank)
            snapshot.filename = filename_of_rank
        else:
            snapshot.filename = '{}.{}'.format(filename, rank)
        self.replica_set = None
        for members in _parse_replica_sets(replica_sets, comm.size):
            if rank in members:
                self.replica_set = members
        self.master = min(self.replica_set)

    @property
    def is_master(self):
        return self.master == self.comm.rank

    def initialize(self, trainer):
        autoload = getattr(self.snapshot, 'autoload', False)
        if self.is_master:
            try:
                self.snapshot.initialize(trainer)
            except Exception as e:
                if autoload:
                    # The rest of the set waits for the loaded state.
                    message = '{}: {}'.format(type(e).__name__, e)
                    for rank in sorted(self.replica_set):
                        if rank != self.comm.rank:
                            self.comm.send_obj(('error', message), dest=rank)
                raise
        if not autoload:
            return
        target = trainer if self.snapshot._target is None \
            else self.snapshot._target
        if self.is_master:
            # What the master's snapshot loaded (if it found a file) is
            # serialized again and sent to the rest of the set.
            data = None
            filename = self.snapshot.filename
            if isinstance(filename, str) and os.path.isdir(trainer.out) and \
                    _find_latest_snapshot(filename, trainer.out) is not None:
                buf = io.BytesIO()
                npz.save_npz(buf, target)
                data = buf.getvalue()
            for rank in sorted(self.replica_set):
                if rank != self.comm.rank:
                    self.comm.send_obj(('ok', data), dest=rank)
        else:
            status, data = self.comm.recv_obj(self.master)
            if status == 'error':
                raise RuntimeError(
                    'multi_node_snapshot: loading the snapshot failed on rank '
                    '{} (this replica set\'s master): {}'.format(self.master,
                                                                 data))
            if data is not None:
                npz.load_npz(io.BytesIO(data), target)

    def on_error(self, trainer, exc, tb):
        if self.is_master:
            self.snapshot.on_error(trainer, exc, tb)

    def __call__(self, trainer):
        if self.is_master:
            self.snapshot(trainer)

    def serialize(self, serializer):
        self.snapshot.serialize(serializer)

    def finalize(self):
        if self.is_master:
            self.snapshot.finalize()
