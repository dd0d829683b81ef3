"""scatter_dataset, scatter_index, create_empty_dataset."""
import numpy
import pytest

pytest.importorskip('mpi4py')

import cpuframe as chainer  # noqa: E402
import cpuframe.mn as chainermn  # noqa: E402
from cpuframe.mn.datasets.scatter import _index_ranges  # noqa: E402


@pytest.mark.parametrize('size', [1, 2, 3, 4, 7])
@pytest.mark.parametrize('n', list(range(0, 23)) + [100, 101])
def test_index_ranges_equal_length(n, size):
    ranges = _index_ranges(n, size, True)
    assert len(ranges) == size
    length = -(-n // size)
    covered = set()
    for begin, end in ranges:
        assert 0 <= begin <= end <= n
        assert end - begin == length
        covered.update(range(begin, end))
    assert covered == set(range(n))


@pytest.mark.parametrize('size', [1, 2, 3, 4, 7])
@pytest.mark.parametrize('n', list(range(0, 23)) + [100, 101])
def test_index_ranges_no_duplicates(n, size):
    ranges = _index_ranges(n, size, False)
    assert len(ranges) == size
    flat = [i for begin, end in ranges for i in range(begin, end)]
    assert flat == list(range(n))        # a partition, in order
    lengths = [end - begin for begin, end in ranges]
    assert max(lengths) - min(lengths) <= 1


def _examples(sub):
    return [sub[i] for i in range(len(sub))]


@pytest.mark.parametrize('force_equal_length', [True, False])
@pytest.mark.parametrize('shuffle', [False, True])
@pytest.mark.parametrize('n_extra', [-1, 0, 1, 5, 98])
def test_scatter_dataset_covers_dataset(comm, everyone, n_extra, shuffle,
                                        force_equal_length):
    # Sizes around the number of ranks, including fewer examples than ranks.
    n = max(comm.size + n_extra, 0)
    dataset = list(range(1000, 1000 + n)) if comm.rank == 0 else None
    sub = chainermn.scatter_dataset(dataset, comm, shuffle=shuffle, seed=3,
                                    force_equal_length=force_equal_length)
    assert isinstance(sub, chainer.datasets.SubDataset)
    parts = everyone(_examples(sub))
    union = [x for part in parts for x in part]
    assert set(union) == set(range(1000, 1000 + n))
    lengths = [len(part) for part in parts]
    if force_equal_length:
        assert lengths == [-(-n // comm.size)] * comm.size
    else:
        assert sorted(union) == list(range(1000, 1000 + n))  # no duplicate
        assert max(lengths) - min(lengths) <= 1


def test_scatter_dataset_fewer_examples_than_ranks(comm, everyone):
    # Chainer's behaviour: with force_equal_length each rank gets one
    # example (repeated where needed); without it some ranks get none.
    dataset = ['only'] if comm.rank == 0 else None
    sub = chainermn.scatter_dataset(dataset, comm)
    assert _examples(sub) == ['only']
    sub = chainermn.scatter_dataset(dataset, comm, force_equal_length=False)
    parts = everyone(_examples(sub))
    assert parts == [['only']] + [[]] * (comm.size - 1)
    empty = chainermn.scatter_dataset([] if comm.rank == 0 else None, comm)
    assert len(empty) == 0


def test_scatter_dataset_from_other_root_and_ignores_other_datasets(comm, everyone):
    root = comm.size - 1
    x = numpy.arange(30, dtype=numpy.int64).reshape(10, 3) + 100 * comm.rank
    t = numpy.arange(10, dtype=numpy.int32) + 100 * comm.rank
    dataset = chainer.datasets.TupleDataset(x, t)
    sub = chainermn.scatter_dataset(dataset, comm, root=root,
                                    force_equal_length=False)
    parts = everyone(_examples(sub))
    got = [example for part in parts for example in part]
    assert len(got) == 10
    for i, (xi, ti) in enumerate(got):
        assert xi.dtype == numpy.int64 and ti.dtype == numpy.int32
        numpy.testing.assert_array_equal(xi, x[i] - 100 * comm.rank +
                                         100 * root)
        assert ti == i + 100 * root


def test_scatter_dataset_seeded_shuffle_is_reproducible(comm):
    dataset = list(range(17))
    a = chainermn.scatter_dataset(dataset, comm, shuffle=True, seed=42)
    b = chainermn.scatter_dataset(dataset, comm, shuffle=True, seed=42)
    assert _examples(a) == _examples(b)
    order = numpy.random.RandomState(42).permutation(17)
    begin, end = _index_ranges(17, comm.size, True)[comm.rank]
    assert _examples(a) == [int(i) for i in order[begin:end]]


def test_scatter_dataset_small_pieces(comm, everyone):
    # A dataset sent in pieces of 7 bytes arrives whole.
    data = numpy.random.RandomState(0).rand(40, 5).astype(numpy.float32)
    sub = chainermn.scatter_dataset(data if comm.rank == 0 else None, comm,
                                    max_buf_len=7, force_equal_length=False)
    parts = everyone(_examples(sub))
    numpy.testing.assert_array_equal(
        numpy.stack([x for part in parts for x in part]), data)


def test_scatter_dataset_errors_reach_every_rank(comm, everyone):
    with pytest.raises(chainermn.DataSizeError, match='None'):
        chainermn.scatter_dataset(None, comm)
    with pytest.raises(ValueError, match='max_buf_len'):
        chainermn.scatter_dataset([1], comm, max_buf_len=0)
    with pytest.raises(ValueError, match='root'):
        chainermn.scatter_dataset([1], comm, root=comm.size)
    with pytest.raises(ValueError, match='seed'):
        chainermn.scatter_dataset([1, 2], comm, shuffle=True, seed=-1)
    with pytest.raises(chainermn.DataSizeError, match='negative'):
        chainermn.scatter_index(-1, comm)
    # The communicator still works afterwards.
    assert everyone(comm.rank) == list(range(comm.size))


def test_scatter_index(comm):
    n = 10 + comm.rank       # only root's count counts
    begin, end = chainermn.scatter_index(n, comm)
    assert (begin, end) == _index_ranges(10, comm.size, True)[comm.rank]
    begin, end = chainermn.scatter_index(n, comm, force_equal_length=False)
    assert (begin, end) == _index_ranges(10, comm.size, False)[comm.rank]


def test_scatter_dataset_takes_an_mpi4py_communicator(comm, everyone):
    sub = chainermn.scatter_dataset(list(range(9)), comm.mpi_comm,
                                    force_equal_length=False)
    parts = everyone(_examples(sub))
    assert [x for part in parts for x in part] == list(range(9))


def test_create_empty_dataset():
    empty = chainermn.datasets.create_empty_dataset(list('abcde'))
    assert len(empty) == 5
    assert all(example == () for example in empty)
    it = chainer.iterators.SerialIterator(empty, 2, repeat=False,
                                          shuffle=False)
    assert [len(b) for b in it] == [2, 2, 1]


def test_deprecated_epoch_helpers(comm):
    from cpuframe.mn.datasets import scatter
    dataset = list(range(10 + comm.rank))      # rank 0's length counts
    with pytest.warns(DeprecationWarning):
        assert scatter.get_n_iterations_for_one_epoch(dataset, 3, comm) == 4
    with pytest.warns(DeprecationWarning):
        assert scatter.get_epoch_trigger(2, dataset, 3, comm) == \
            (8, 'iteration')
