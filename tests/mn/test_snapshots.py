"""create_multi_node_checkpointer and multi_node_snapshot: a run killed
and resumed ends with the same parameters as an uninterrupted one."""
import os
import warnings

import numpy
import pytest

pytest.importorskip('mpi4py')

import cpuframe as chainer  # noqa: E402
import cpuframe.links as L  # noqa: E402
import cpuframe.mn as chainermn  # noqa: E402
from cpuframe import training  # noqa: E402
from cpuframe.dataset import convert  # noqa: E402
from cpuframe.mn.extensions._multi_node_snapshot import (  # noqa: E402
    _parse_replica_sets,
)
from cpuframe.training import extensions  # noqa: E402


class _DataParallelUpdater(training.updaters.StandardUpdater):
    """Forward, backward, mean of the gradients over the ranks, update."""

    def __init__(self, iterator, optimizer, comm):
        super().__init__(iterator, optimizer)
        self.comm = comm

    def update_core(self):
        batch = self.get_iterator('main').next()
        x, t = convert.concat_examples(batch)
        optimizer = self.get_optimizer('main')
        model = optimizer.target
        model.cleargrads()
        model(x, t).backward()
        self.comm.multi_node_mean_grad(model)
        optimizer.update()


def _make_trainer(comm, out, stop, per_rank_data=True):
    """A freshly built (``killed and restarted``) training job."""
    model = L.Classifier(L.Linear(
        4, 3, initialW=numpy.random.RandomState(0).randn(3, 4)
        .astype(numpy.float32), initial_bias=0))
    comm.bcast_data(model)
    rng = numpy.random.RandomState(1)
    dataset = chainer.datasets.TupleDataset(
        rng.randn(30, 4).astype(numpy.float32),
        rng.randint(0, 3, 30).astype(numpy.int32))
    if per_rank_data:
        dataset = chainermn.scatter_dataset(dataset, comm, shuffle=True,
                                            seed=0)
        seed = 100 + comm.rank     # each rank shuffles its own way
    else:
        seed = 100                 # every rank the same: one replica set
    it = chainer.iterators.SerialIterator(
        dataset, 4, order_sampler=chainer.iterators.ShuffleOrderSampler(
            numpy.random.RandomState(seed)))
    optimizer = chainer.optimizers.MomentumSGD(lr=0.1).setup(model)
    updater = _DataParallelUpdater(it, optimizer, comm)
    trainer = training.Trainer(updater, (stop, 'iteration'), out=out)
    seen = []

    @training.make_extension(trigger=(1, 'iteration'), priority=-1000)
    def record(trainer):
        seen.append(trainer.updater.iteration)
    trainer.extend(record)
    return trainer, model, seen


def _params(model):
    return {name: numpy.array(p.array) for name, p in model.namedparams()}


def _assert_same_params(a, b):
    assert sorted(a) == sorted(b)
    for name in a:
        numpy.testing.assert_array_equal(a[name], b[name], err_msg=name)


def _uninterrupted(comm, local_tmp, stop, per_rank_data=True):
    trainer, model, _ = _make_trainer(comm, str(local_tmp / 'plain'), stop,
                                      per_rank_data)
    trainer.run()
    return _params(model)


def _checkpointer(comm, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        return chainermn.create_multi_node_checkpointer(comm=comm, **kwargs)


def test_checkpointer_resume_continues_exactly(comm, everyone, local_tmp,
                                                shared_tmp):
    expected = _uninterrupted(comm, local_tmp, 13)
    out = os.path.join(shared_tmp, 'run')

    # First run: checkpoints every 3 iterations, killed after 8 (a killed
    # process never runs finalize, which would remove the checkpoints).
    trainer, model, seen = _make_trainer(comm, out, 8)
    checkpointer = _checkpointer(comm, name='job')
    checkpointer.finalize = lambda: None
    trainer.extend(checkpointer, trigger=(3, 'iteration'))
    checkpointer.maybe_load(trainer)
    trainer.run()
    assert seen == list(range(1, 9))
    names = sorted(os.listdir(out))
    assert 'job.{}.6'.format(comm.rank) in names
    del trainer, model, checkpointer   # everything in memory is lost

    # Restart from scratch: the newest common checkpoint (6) is loaded.
    trainer, model, seen = _make_trainer(comm, out, 13)
    checkpointer = _checkpointer(comm, name='job')
    trainer.extend(checkpointer, trigger=(3, 'iteration'))
    checkpointer.maybe_load(trainer)
    assert trainer.updater.iteration == 6
    trainer.run()
    assert seen == list(range(7, 14))
    _assert_same_params(_params(model), expected)
    # finalize at the end of the run removed this rank's checkpoints.
    comm.mpi_comm.Barrier()
    assert not [n for n in os.listdir(out) if n.startswith('job.')]


def test_checkpointer_uses_only_iterations_every_rank_has(comm, shared_tmp):
    out = os.path.join(shared_tmp, 'partial')
    trainer, model, _ = _make_trainer(comm, out, 6)
    checkpointer = _checkpointer(comm, name='job', path=out)
    checkpointer.finalize = lambda: None
    trainer.extend(checkpointer, trigger=(3, 'iteration'))
    trainer.run()
    comm.mpi_comm.Barrier()
    # Rank 0 died while writing iteration 6: its file never appeared, only
    # the atomic writer's temporary debris did.  Unrelated files are
    # ignored too.
    if comm.rank == 0:
        os.remove(os.path.join(out, 'job.0.6'))
        for debris in ('.job.0.6.tmp-somehost-999999-0123abcd', 'job.0.x',
                       'job.0.9.npz', 'other.0.9', 'log'):
            with open(os.path.join(out, debris), 'w') as f:
                f.write('not a snapshot')
    comm.mpi_comm.Barrier()
    trainer, model, _ = _make_trainer(comm, out, 6)
    checkpointer = _checkpointer(comm, name='job', path=out)
    checkpointer.maybe_load(trainer)
    assert trainer.updater.iteration == 3


def test_checkpointer_garbage_collection(comm, shared_tmp):
    out = os.path.join(shared_tmp, 'gc')
    checkpointer = _checkpointer(comm, name='gc', cp_interval=2,
                                 gc_interval=3, path=out)
    model = L.Linear(2, 2)
    kept = []
    for iteration in range(1, 11):
        checkpointer.save(model, iteration)
        mine = sorted(int(n.rsplit('.', 1)[1]) for n in os.listdir(out)
                      if n.startswith('gc.{}.'.format(comm.rank)))
        kept.append(mine)
        # Never more than cp_interval + gc_interval files, never fewer
        # than cp_interval once written.
        assert min(iteration, 2) <= len(mine) <= 5
    # Collected when 3 beyond the 2 kept have piled up: at 5 and at 8.
    assert kept[4] == [4, 5]
    assert kept[7] == [7, 8]
    assert kept[-1] == [7, 8, 9, 10]
    assert 'Snapshot duration' in checkpointer.get_stats()
    checkpointer.finalize()
    assert not [n for n in os.listdir(out)
                if n.startswith('gc.{}.'.format(comm.rank))]


def test_checkpointer_arguments(comm):
    with pytest.warns(DeprecationWarning):
        chainermn.create_multi_node_checkpointer('x', comm)
    with pytest.raises(ValueError, match='cp_interval'):
        _checkpointer(comm, name='x', cp_interval=0)
    with pytest.raises(ValueError, match='name'):
        _checkpointer(comm, name='')


@pytest.mark.parametrize('size,replica_sets,expected', [
    (4, [0], [{0}, {1, 2, 3}]),
    (4, [0, 1], [{0}, {1}, {2, 3}]),
    (4, [[0, 1], [2, 3]], [{0, 1}, {2, 3}]),
    (4, [], [{0, 1, 2, 3}]),
    (8, [range(0, 8, 2)], [{0, 2, 4, 6}, {1, 3, 5, 7}]),
    (1, [], [{0}]),
])
def test_parse_replica_sets(size, replica_sets, expected):
    assert _parse_replica_sets(replica_sets, size) == expected


@pytest.mark.parametrize('replica_sets', [[4], [[0, 1], [1, 2]], [[]]])
def test_parse_replica_sets_errors(replica_sets):
    with pytest.raises(ValueError):
        _parse_replica_sets(replica_sets, 4)


@pytest.mark.parametrize('layout', ['own-sets', 'one-set', 'rank0-alone'])
def test_multi_node_snapshot_resume_continues_exactly(comm, local_tmp,
                                                      shared_tmp, layout):
    # own-sets: every rank has its own data and shuffling, and saves;
    # one-set: identical ranks, rank 0 saves for all; rank0-alone: the
    # documented [0]: rank 0 saves, and rank 1 for ranks 1 ... size-1.
    per_rank = layout == 'own-sets'
    replica_sets = {'own-sets': [[r] for r in range(comm.size)],
                    'one-set': [], 'rank0-alone': [0]}[layout]
    savers = {'own-sets': list(range(comm.size)), 'one-set': [0],
              'rank0-alone': [0, 1][:comm.size]}[layout]
    expected = _uninterrupted(comm, local_tmp, 13, per_rank)
    out = os.path.join(shared_tmp, 'snap')

    def add_snapshot(trainer):
        snapshot = chainermn.extensions.multi_node_snapshot(
            comm, extensions.snapshot(filename='s_{.updater.iteration}',
                                      autoload=True), replica_sets)
        trainer.extend(snapshot, trigger=(3, 'iteration'))

    trainer, model, seen = _make_trainer(comm, out, 8, per_rank)
    add_snapshot(trainer)
    trainer.run()
    assert seen == list(range(1, 9))
    comm.mpi_comm.Barrier()
    names = set(os.listdir(out))
    assert {'s_{}.{}'.format(i, r) for i in (3, 6) for r in savers} <= names
    assert not [n for n in names if n.startswith('s_') and
                int(n.rsplit('.', 1)[1]) not in savers]
    del trainer, model

    trainer, model, seen = _make_trainer(comm, out, 13, per_rank)
    add_snapshot(trainer)
    trainer.run()
    assert seen == list(range(7, 14))
    _assert_same_params(_params(model), expected)


def test_multi_node_snapshot_without_snapshot_files_starts_fresh(
        comm, shared_tmp):
    out = os.path.join(shared_tmp, 'fresh')
    trainer, _, seen = _make_trainer(comm, out, 2)
    trainer.extend(chainermn.extensions.multi_node_snapshot(
        comm, extensions.snapshot(autoload=True), [0]))
    trainer.run()
    assert seen == [1, 2]
