"""create_multi_node_iterator and create_synchronized_iterator."""
import copy

import numpy
import pytest

pytest.importorskip('mpi4py')

import cpuframe as chainer  # noqa: E402
import cpuframe.mn as chainermn  # noqa: E402
from cpuframe.serializers import npz  # noqa: E402


def _position(it):
    return (it.epoch, it.current_position, it.is_new_epoch,
            float(it.epoch_detail))


def _equal_batches(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        if isinstance(x, tuple):
            assert isinstance(y, tuple) and len(x) == len(y)
            for xi, yi in zip(x, y):
                assert numpy.asarray(xi).dtype == numpy.asarray(yi).dtype
                numpy.testing.assert_array_equal(xi, yi)
        else:
            assert numpy.asarray(x).dtype == numpy.asarray(y).dtype
            numpy.testing.assert_array_equal(x, y)


@pytest.mark.parametrize('paired', [False, True])
def test_multi_node_iterator_gives_master_batches(comm, everyone, paired):
    master = comm.size - 1
    rng = numpy.random.RandomState(comm.rank)   # differs on every rank
    x = rng.randint(0, 100, size=(11, 2)).astype(numpy.int64)
    y = rng.rand(11).astype(numpy.float64)
    dataset = chainer.datasets.TupleDataset(x, y) if paired else x
    actual = chainer.iterators.SerialIterator(dataset, 3, repeat=False,
                                              shuffle=True)
    it = chainermn.iterators.create_multi_node_iterator(actual, comm,
                                                        rank_master=master)
    batches, positions = [], []
    for batch in it:
        batches.append(batch)
        positions.append(_position(it))
    assert [len(b) for b in batches] == [3, 3, 3, 2]
    every = everyone((batches, positions))
    for other_batches, other_positions in every:
        assert other_positions == every[master][1]
        for b, ref in zip(other_batches, every[master][0]):
            _equal_batches(b, ref)
    # The master's batches are its own dataset's examples.
    if comm.rank == master:
        flat = numpy.stack([e[0] if paired else e for b in batches
                            for e in b])
        assert sorted(map(tuple, flat)) == sorted(map(tuple, x))


def test_multi_node_iterator_epochs_and_reset(comm, everyone):
    actual = chainer.iterators.SerialIterator(list(range(5)), 2,
                                              shuffle=False)
    it = chainermn.iterators.create_multi_node_iterator(actual, comm)
    seen = []
    for _ in range(6):
        batch = it.next()
        seen.append((batch, _position(it)))
    assert [b for b, _ in seen] == [[0, 1], [2, 3], [4, 0], [1, 2], [3, 4],
                                    [0, 1]]
    assert [p[0] for _, p in seen] == [0, 0, 1, 1, 2, 2]
    assert [p[2] for _, p in seen] == [False, False, True, False, True,
                                       False]
    assert everyone(seen) == [seen] * comm.size
    it.reset()
    assert it.next() == [0, 1]
    assert it.epoch == 0


def test_multi_node_iterator_serialize(comm, everyone, local_tmp):
    actual = chainer.iterators.SerialIterator(list(range(7)), 3,
                                              shuffle=False)
    it = chainermn.iterators.create_multi_node_iterator(actual, comm)
    for _ in range(3):
        it.next()
    path = str(local_tmp / 'it.npz')
    npz.save_npz(path, it)
    before = _position(it)
    expected_next = it.next()
    # A fresh iterator loaded from this rank's own file continues alike.
    actual2 = chainer.iterators.SerialIterator(list(range(7)), 3,
                                               shuffle=False)
    it2 = chainermn.iterators.create_multi_node_iterator(actual2, comm)
    npz.load_npz(path, it2)
    assert _position(it2) == before
    assert it2.next() == expected_next
    assert len(set(map(tuple, everyone(before)))) == 1


def test_multi_node_iterator_bad_rank_master(comm):
    actual = chainer.iterators.SerialIterator([1], 1)
    with pytest.raises(ValueError, match='rank_master'):
        chainermn.iterators.create_multi_node_iterator(actual, comm,
                                                       rank_master=comm.size)


def test_synchronized_iterator_same_order_everywhere(comm, everyone):
    numpy.random.seed(1234 + comm.rank)   # the global RNG differs per rank
    actual = chainer.iterators.SerialIterator(list(range(10)), 4,
                                              shuffle=True)
    it = chainermn.iterators.create_synchronized_iterator(actual, comm)
    batches = [it.next() for _ in range(8)]    # more than 3 epochs
    assert it.epoch == 3
    assert sorted(sum(batches[:2], []) + batches[2][:2]) == list(range(10))
    assert everyone(batches) == [batches] * comm.size
    # Attributes read and set go to the wrapped iterator.
    it.batch_size = 2
    assert actual.batch_size == 2
    assert len(it.next()) == 2


def test_synchronized_iterator_needs_order_sampler(comm):
    class NoSampler(chainer.dataset.Iterator):
        def __next__(self):
            return [0]

    with pytest.raises(ValueError, match='order_sampler'):
        chainermn.iterators.create_synchronized_iterator(NoSampler(), comm)


def test_wrappers_can_be_copied(comm):
    actual = chainer.iterators.SerialIterator(list(range(6)), 2,
                                              shuffle=True)
    it = chainermn.iterators.create_synchronized_iterator(actual, comm)
    clone = copy.copy(it)
    assert clone.actual_iterator is actual
    master = chainermn.iterators.create_multi_node_iterator(
        chainer.iterators.SerialIterator([1, 2], 1), comm)
    if comm.rank == 0:
        assert copy.copy(master).actual_iterator is master.actual_iterator
