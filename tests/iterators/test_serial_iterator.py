import numpy
import pytest

from cpuframe import dataset, iterators, serializers


def run(it, n):
    """``n`` steps of (batch, epoch, is_new_epoch, epoch_detail,
    previous_epoch_detail)."""
    out = []
    for _ in range(n):
        batch = next(it)
        out.append((list(batch), it.epoch, it.is_new_epoch,
                    round(it.epoch_detail, 9),
                    None if it.previous_epoch_detail is None
                    else round(it.previous_epoch_detail, 9)))
    return out


def test_no_shuffle_repeat_fills_last_batch_from_next_epoch():
    it = iterators.SerialIterator(list(range(5)), 2, shuffle=False)
    assert it.epoch == 0 and not it.is_new_epoch
    assert it.epoch_detail == 0. and it.previous_epoch_detail is None
    assert run(it, 6) == [
        ([0, 1], 0, False, 0.4, 0.0),
        ([2, 3], 0, False, 0.8, 0.4),
        ([4, 0], 1, True, 1.2, 0.8),
        ([1, 2], 1, False, 1.6, 1.2),
        ([3, 4], 2, True, 2.0, 1.6),
        ([0, 1], 2, False, 2.4, 2.0),
    ]
    assert it.current_position == 2 and it.repeat


def test_no_repeat_stops_after_short_last_batch():
    it = iterators.SerialIterator(list(range(5)), 2, repeat=False,
                                  shuffle=False)
    assert run(it, 3) == [
        ([0, 1], 0, False, 0.4, 0.0),
        ([2, 3], 0, False, 0.8, 0.4),
        ([4], 1, True, 1.0, 0.8),
    ]
    for _ in range(2):
        with pytest.raises(StopIteration):
            next(it)
    assert it.epoch == 1 and it.epoch_detail == 1.0
    assert it.previous_epoch_detail == 1.0


def test_no_repeat_exact_multiple_and_for_loop():
    it = iterators.SerialIterator(list(range(4)), 2, repeat=False,
                                  shuffle=False)
    assert [b for b in it] == [[0, 1], [2, 3]]
    assert it.is_new_epoch and it.current_position == 0


def test_batch_larger_than_dataset():
    it = iterators.SerialIterator([0, 1, 2], 7, shuffle=False)
    assert next(it) == [0, 1, 2, 0, 1, 2, 0]
    assert (it.epoch, it.current_position, it.is_new_epoch) == (2, 1, True)
    assert next(it) == [1, 2, 0, 1, 2, 0, 1]
    assert (it.epoch, it.current_position) == (4, 2)
    it = iterators.SerialIterator([0, 1, 2], 5, repeat=False, shuffle=False)
    assert list(it) == [[0, 1, 2]]


def test_seeded_shuffle_uses_a_new_permutation_each_epoch():
    sampler = iterators.ShuffleOrderSampler(numpy.random.RandomState(7))
    it = iterators.SerialIterator(list(range(5)), 2, order_sampler=sampler)
    r = numpy.random.RandomState(7)
    o0, o1, o2 = r.permutation(5), r.permutation(5), r.permutation(5)
    batches = [next(it) for _ in range(6)]
    assert batches == [
        [o0[0], o0[1]], [o0[2], o0[3]], [o0[4], o1[0]],
        [o1[1], o1[2]], [o1[3], o1[4]], [o2[0], o2[1]]]
    assert sorted(batches[0] + batches[1] + batches[2][:1]) == list(range(5))


def test_shuffle_argument():
    numpy.random.seed(3)
    try:
        it = iterators.SerialIterator(list(range(6)), 6, shuffle=True)
        expected = numpy.random.RandomState(3).permutation(6).tolist()
        assert next(it) == expected
        it = iterators.SerialIterator(list(range(6)), 6)  # None: shuffles
        assert isinstance(it.order_sampler, iterators.ShuffleOrderSampler)
    finally:
        numpy.random.seed(None)
    it = iterators.SerialIterator(list(range(6)), 6, shuffle=False)
    assert it.order_sampler is None


def test_custom_order_sampler_calls():
    calls = []

    def reverse(order, position):
        calls.append((list(order), position))
        return numpy.array(order[::-1])

    it = iterators.SerialIterator(list(range(5)), 2, order_sampler=reverse)
    assert calls == [([0, 1, 2, 3, 4], 0)]
    assert [next(it) for _ in range(3)] == [[4, 3], [2, 1], [0, 0]]
    assert calls[1] == ([4, 3, 2, 1, 0], 4)


def test_shuffle_and_order_sampler_conflict():
    with pytest.raises(ValueError, match='SerialIterator: `shuffle` is not '
                                         'None'):
        iterators.SerialIterator([1], 1, shuffle=False,
                                 order_sampler=lambda o, p: o)


def test_order_sampler_with_wrong_length():
    calls = []

    def bad(order, position):
        calls.append(position)
        return numpy.arange(len(order) + (1 if len(calls) > 1 else 0))

    it = iterators.SerialIterator(list(range(3)), 2, order_sampler=bad)
    next(it)
    with pytest.raises(ValueError, match='order of length 4.*length 3'):
        next(it)
    with pytest.raises(ValueError, match='SerialIterator: the order sampler'):
        iterators.SerialIterator([1, 2], 1,
                                 order_sampler=lambda o, p: numpy.arange(3))


@pytest.mark.parametrize('batch_size, error', [
    (0, ValueError), (-1, ValueError), (1.5, TypeError), ('2', TypeError)])
def test_bad_batch_size(batch_size, error):
    with pytest.raises(error, match='SerialIterator: batch_size'):
        iterators.SerialIterator([1, 2], batch_size)


def test_empty_dataset():
    it = iterators.SerialIterator([], 2, shuffle=False)
    with pytest.raises(ValueError, match='empty dataset'):
        next(it)
    it = iterators.SerialIterator([], 2, repeat=False, shuffle=False)
    assert list(it) == []
    assert it.epoch == 1


def test_reset():
    it = iterators.SerialIterator(list(range(5)), 2, shuffle=False)
    run(it, 4)
    it.reset()
    assert (it.epoch, it.current_position, it.is_new_epoch) == (0, 0, False)
    assert it.previous_epoch_detail is None
    assert next(it) == [0, 1]


def test_is_an_iterator_and_feeds_concat_examples():
    ds = [(numpy.array([i, i], numpy.float32), i) for i in range(4)]
    it = iterators.SerialIterator(ds, 3, shuffle=False)
    assert isinstance(it, dataset.Iterator)
    x, t = dataset.concat_examples(next(it))
    assert x.shape == (3, 2) and t.tolist() == [0, 1, 2]


def test_tuple_dataset_examples():
    from cpuframe.datasets import TupleDataset
    ds = TupleDataset(numpy.arange(3) * 10, numpy.arange(3))
    it = iterators.SerialIterator(ds, 2, shuffle=False)
    assert next(it) == [(0, 0), (10, 1)]


def make(seed=1, **kwargs):
    return iterators.SerialIterator(
        list(range(7)), 3,
        order_sampler=iterators.ShuffleOrderSampler(
            numpy.random.RandomState(seed)), **kwargs)


def test_save_npz_keys(tmp_path):
    it = make()
    next(it)
    path = tmp_path / 'it.npz'
    serializers.save_npz(path, it)
    with numpy.load(path) as f:
        assert sorted(f.files) == [
            'current_position', 'epoch', 'is_new_epoch', 'order',
            'order_sampler/cached_gaussian', 'order_sampler/has_gauss',
            'order_sampler/keys', 'order_sampler/pos',
            'previous_epoch_detail']
        assert int(f['current_position']) == 3 and int(f['epoch']) == 0
        assert float(f['previous_epoch_detail']) == 0.


@pytest.mark.parametrize('steps', [0, 1, 2, 4, 9])
def test_resume_gives_the_same_batches(tmp_path, steps):
    it = make()
    for _ in range(steps):
        next(it)
    path = tmp_path / 'it.npz'
    serializers.save_npz(path, it)
    resumed = make(seed=99)  # a different generator: the state is loaded
    serializers.load_npz(path, resumed)
    assert (resumed.epoch, resumed.current_position, resumed.is_new_epoch,
            resumed.previous_epoch_detail) == (
        it.epoch, it.current_position, it.is_new_epoch,
        it.previous_epoch_detail)
    assert isinstance(resumed.epoch, int)
    assert isinstance(resumed.is_new_epoch, bool)
    assert [next(resumed) for _ in range(8)] == [next(it) for _ in range(8)]


def test_resume_without_shuffle(tmp_path):
    it = iterators.SerialIterator(list(range(5)), 2, shuffle=False)
    run(it, 3)
    serializers.save_npz(tmp_path / 'a.npz', it)
    with numpy.load(tmp_path / 'a.npz') as f:
        assert 'order' not in f.files
    other = iterators.SerialIterator(list(range(5)), 2, shuffle=False)
    serializers.load_npz(tmp_path / 'a.npz', other)
    assert run(other, 3) == run(it, 3)


def test_load_chainer_snapshot_layout(tmp_path):
    # An older Chainer snapshot: '_order' and no previous_epoch_detail,
    # no order sampler state.
    order = numpy.array([4, 3, 2, 1, 0])
    numpy.savez(tmp_path / 'old.npz', current_position=numpy.array(2),
                epoch=numpy.array(1), is_new_epoch=numpy.array(False),
                _order=order)
    it = iterators.SerialIterator(list(range(5)), 2,
                                  order_sampler=lambda o, p: numpy.arange(5))
    serializers.load_npz(tmp_path / 'old.npz', it)
    assert (it.epoch, it.current_position) == (1, 2)
    # Inferred as epoch + (position - batch_size) / len = 1 + 0 / 5.
    assert it.previous_epoch_detail == 1.0
    assert next(it) == [2, 1]


def test_load_mismatched_dataset_size_raises_and_keeps_state(tmp_path):
    it = make()
    serializers.save_npz(tmp_path / 'a.npz', it)
    other = iterators.SerialIterator(
        list(range(9)), 3, order_sampler=iterators.ShuffleOrderSampler(
            numpy.random.RandomState(0)))
    next(other)
    with pytest.raises(ValueError, match="'order'"):
        serializers.load_npz(tmp_path / 'a.npz', other)
    assert other.current_position == 3
