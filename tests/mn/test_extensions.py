"""Multi-node evaluators, AllreducePersistent, ObservationAggregator and
MultiNodeEarlyStoppingTrigger."""
import numpy
import pytest

pytest.importorskip('mpi4py')

import cpuframe as chainer  # noqa: E402
import cpuframe.functions as F  # noqa: E402
import cpuframe.links as L  # noqa: E402
import cpuframe.mn as chainermn  # noqa: E402
from cpuframe import training  # noqa: E402
from cpuframe.training import extensions  # noqa: E402


class _Reporting(chainer.Link):
    """Reports the batch mean and max of ``x``; rank ``extra_rank`` also
    reports ``extra``; rank ``fail_rank`` raises."""

    def __init__(self, extra_rank=None, fail_rank=None, rank=0):
        super().__init__()
        self.extra = extra_rank == rank
        self.fail = fail_rank == rank

    def forward(self, x):
        if self.fail:
            raise RuntimeError('evaluation failed here')
        observation = {'loss': F.mean(x), 'max': F.max(x)}
        if self.extra:
            observation['extra'] = F.mean(x)
        chainer.reporter.report(observation, self)
        return F.mean(x)


def _local_data(rank):
    return (numpy.arange(6, dtype=numpy.float32) * (rank + 1) +
            rank).reshape(6, 1)


def _evaluator(comm, **kwargs):
    data = _local_data(comm.rank)
    it = chainer.iterators.SerialIterator(data, 2, repeat=False,
                                          shuffle=False)
    target = _Reporting(rank=comm.rank, **kwargs)
    return extensions.Evaluator(it, target)


def test_multi_node_evaluator_means_over_ranks(comm, everyone):
    evaluator = chainermn.create_multi_node_evaluator(_evaluator(comm), comm)
    result = evaluator()
    # Computed independently: each rank's mean of batch means, then the
    # mean over ranks.
    expected = {'main/loss': [], 'main/max': []}
    for rank in range(comm.size):
        batches = _local_data(rank).reshape(3, 2)
        expected['main/loss'].append(batches.mean(axis=1).mean())
        expected['main/max'].append(batches.max(axis=1).mean())
    assert sorted(result) == ['main/loss', 'main/max']
    for key, values in expected.items():
        numpy.testing.assert_allclose(float(result[key]), numpy.mean(values),
                                      rtol=1e-6)
    # Every rank has the same result, and a second call gives it again.
    assert len({tuple(sorted((k, float(v)) for k, v in r.items()))
                for r in everyone(result)}) == 1
    again = evaluator()
    assert {k: float(v) for k, v in again.items()} == \
        {k: float(v) for k, v in result.items()}


def test_multi_node_evaluator_in_a_trainer(comm, everyone, local_tmp):
    model = L.Classifier(L.Linear(1, 2))
    model.cleargrads()
    data = chainer.datasets.TupleDataset(_local_data(comm.rank),
                                         numpy.zeros(6, numpy.int32))
    train = chainer.iterators.SerialIterator(data, 2)
    updater = training.updaters.StandardUpdater(
        train, chainer.optimizers.SGD(lr=0.0).setup(model))
    trainer = training.Trainer(updater, (2, 'iteration'), out=str(local_tmp))
    test_it = chainer.iterators.SerialIterator(data, 2, repeat=False,
                                               shuffle=False)
    evaluator = chainermn.create_multi_node_evaluator(
        extensions.Evaluator(test_it, model), comm)
    trainer.extend(evaluator, trigger=(1, 'iteration'))
    seen = []

    @training.make_extension(trigger=(1, 'iteration'), priority=0)
    def record(trainer):
        seen.append(float(trainer.observation['validation/main/loss']))
    trainer.extend(record)
    trainer.run()
    # lr is 0, so the model stays as it was: each rank's own evaluation
    # (without the multi-node wrapper), averaged here.
    local = float(extensions.Evaluator(test_it, model)()['main/loss'])
    expected = numpy.mean(everyone(local))
    assert len(seen) == 2
    numpy.testing.assert_allclose(seen, [expected] * 2, rtol=1e-6)


def test_multi_node_evaluator_key_missing_on_a_rank(comm):
    if comm.size == 1:
        pytest.skip('needs two ranks')
    evaluator = chainermn.create_multi_node_evaluator(
        _evaluator(comm, extra_rank=0), comm)
    with pytest.raises(ValueError, match="'main/extra'"):
        evaluator()


def test_multi_node_evaluator_failure_reaches_every_rank(comm):
    if comm.size == 1:
        pytest.skip('needs two ranks')
    failing = comm.size - 1
    evaluator = chainermn.create_multi_node_evaluator(
        _evaluator(comm, fail_rank=failing), comm)
    if comm.rank == failing:
        with pytest.raises(RuntimeError, match='evaluation failed here'):
            evaluator()
    else:
        with pytest.raises(ValueError, match='failed on rank {}'.format(
                failing)):
            evaluator()


class _SumEvaluator(chainermn.extensions.GenericMultiNodeEvaluator):
    def calc_local(self, x):
        return (int(x.sum()), len(x))

    def aggregate(self, results):
        return (sum(s for s, _ in results), sum(n for _, n in results),
                len(results))


def test_generic_multi_node_evaluator_uneven_parts(comm, everyone):
    # Ranks have different numbers of batches (no equal-length forcing).
    n = 23
    sub = chainermn.scatter_dataset(numpy.arange(n), comm,
                                    force_equal_length=False)
    it = chainer.iterators.SerialIterator(sub, 2, repeat=False,
                                          shuffle=False)
    hooked = []
    evaluator = _SumEvaluator(comm, it, target=None,
                              progress_hook=hooked.append)
    result = evaluator()
    n_batches = everyone(-(-len(sub) // 2))
    if comm.rank == 0:
        assert result == (sum(range(n)), n, sum(n_batches))
        assert len(hooked) == n_batches[0]
    else:
        assert result is None
        assert hooked == []
    # The iterator is reset and the evaluation can run again.
    assert evaluator() == result


def test_generic_multi_node_evaluator_default_methods(comm):
    it = chainer.iterators.SerialIterator(
        numpy.arange(4, dtype=numpy.float32) + comm.rank, 2, repeat=False,
        shuffle=False)
    evaluator = chainermn.extensions.GenericMultiNodeEvaluator(
        comm, it, lambda x: float(x.sum()), root=comm.size - 1)
    result = evaluator()
    if comm.rank == comm.size - 1:
        # Results in rank order, round by round.
        expected = []
        for batch in range(2):
            for rank in range(comm.size):
                expected.append(float(2 * batch + 1 + 2 * batch + 2 * rank))
        assert result == expected
    else:
        assert result is None


def test_generic_evaluator_without_communicator():
    it = chainer.iterators.SerialIterator(numpy.arange(5), 2, repeat=False,
                                          shuffle=False)
    evaluator = _SumEvaluator(None, it, target=None)
    assert evaluator() == (10, 5, 3)


def test_allreduce_persistent(comm, everyone):
    model = chainer.Sequential(L.BatchNormalization(3), L.Linear(3, 2))
    bn = model[0]
    bn.avg_mean[...] = numpy.arange(3) + comm.rank * 10.0
    bn.avg_var[...] = comm.rank + 1.0
    bn.N = 7 + comm.rank
    ext = chainermn.extensions.AllreducePersistent(model, comm)
    assert ext.trigger == (1, 'epoch')
    ext()
    ranks = numpy.arange(comm.size)
    numpy.testing.assert_allclose(bn.avg_mean,
                                  numpy.arange(3) + ranks.mean() * 10)
    numpy.testing.assert_allclose(bn.avg_var, numpy.full(3, ranks.mean() + 1))
    assert bn.avg_mean.dtype == numpy.float32
    assert bn.N == 7 + comm.rank          # integers are left alone
    assert len({tuple(v) for v in everyone(bn.avg_mean.tolist())}) == 1


def test_allreduce_persistent_mismatch(comm):
    if comm.size == 1:
        pytest.skip('needs two ranks')
    model = L.BatchNormalization(3 if comm.rank == 0 else 4)
    with pytest.raises(ValueError, match='differ between ranks'):
        chainermn.extensions.AllreducePersistent(model, comm)()


class _Probe(chainer.Chain):
    """Reports ``values(rank, call)`` as main/<key>; a zero loss."""

    def __init__(self, rank, key, values):
        super().__init__()
        with self.init_scope():
            self.l = L.Linear(1, 1)
        self.rank, self.key, self.values, self.calls = rank, key, values, 0

    def forward(self, x):
        self.calls += 1
        chainer.reporter.report(
            {self.key: self.values(self.rank, self.calls)}, self)
        return F.sum(self.l(x)) * 0


def _probe_trainer(comm, local_tmp, key, values, stop):
    model = _Probe(comm.rank, key, values)
    optimizer = chainer.optimizers.SGD().setup(model)
    it = chainer.iterators.SerialIterator(
        numpy.ones((4, 1), numpy.float32), 1)
    updater = training.updaters.StandardUpdater(it, optimizer)
    return training.Trainer(updater, stop, out=str(local_tmp))


def test_observation_aggregator(comm, local_tmp):
    def values(rank, call):
        return float(10 * rank + call)

    trainer = _probe_trainer(comm, local_tmp, 'value', values,
                             (6, 'iteration'))
    trainer.extend(chainermn.extensions.ObservationAggregator(
        comm, 'main/value', 'main/value_mean', comm_trigger=(2, 'iteration')))
    seen = []

    @training.make_extension(trigger=(1, 'iteration'), priority=0)
    def record(trainer):
        seen.append((trainer.updater.iteration,
                     trainer.observation.get('main/value_mean'),
                     float(trainer.observation['main/value'])))
    trainer.extend(record)
    trainer.run()
    ranks_mean = 10 * (comm.size - 1) / 2
    assert [s[0] for s in seen] == [1, 2, 3, 4, 5, 6]
    for iteration, aggregated, own in seen:
        assert own == 10 * comm.rank + iteration     # left as it was
        if iteration % 2:
            assert aggregated is None
        else:
            assert aggregated == pytest.approx(ranks_mean + iteration - 0.5)


def test_observation_aggregator_custom_and_overwrite(comm, local_tmp):
    def values(rank, call):
        return chainer.Variable(numpy.array(float(rank), numpy.float32))

    trainer = _probe_trainer(comm, local_tmp, 'value', values,
                             (2, 'iteration'))
    trainer.extend(chainermn.extensions.ObservationAggregator(
        comm, 'main/value', aggregator=lambda h: max(max(x) for x in h)))
    seen = []

    @training.make_extension(trigger=(1, 'iteration'), priority=0)
    def record(trainer):
        seen.append(trainer.observation['main/value'])
    trainer.extend(record)
    trainer.run()
    assert [float(v) for v in seen] == [comm.size - 1.0] * 2


def test_multi_node_early_stopping_trigger(comm, everyone, local_tmp):
    # Rank 0's loss is best at iteration 3 and then worsens a lot; the
    # other ranks' losses keep improving slightly.  The mean over ranks is
    # best at iteration 3, so with patience 2 every rank stops at 5 (each
    # rank alone would stop at 5 or never).
    def values(rank, call):
        if rank == 0:
            return float([10, 8, 6, 8, 10, 12, 14, 16, 18, 20][call - 1])
        return 1.0 - 0.01 * call

    trigger = chainermn.extensions.MultiNodeEarlyStoppingTrigger(
        comm, check_trigger=(1, 'iteration'), monitor='main/loss',
        patience=2, max_trigger=(10, 'iteration'))
    assert trigger.get_training_length() == (10, 'iteration')
    trainer = _probe_trainer(comm, local_tmp, 'loss', values, trigger)
    trainer.run()
    assert everyone(trainer.updater.iteration) == [5] * comm.size
