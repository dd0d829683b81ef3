"""MultithreadIterator and MultiprocessIterator yield what SerialIterator
yields for the same order."""
import multiprocessing
import time
import warnings

import numpy
import pytest

from cpuframe import iterators, serializers
from cpuframe.datasets import TupleDataset

needs_fork = pytest.mark.skipif(
    multiprocessing.get_start_method() != 'fork',
    reason='the test dataset class is not importable by spawned workers')

KINDS = [
    ('thread-1', iterators.MultithreadIterator, {'n_threads': 1}),
    ('thread-3', iterators.MultithreadIterator, {'n_threads': 3}),
    ('process-1', iterators.MultiprocessIterator,
     {'n_processes': 1}),
    ('process-2-prefetch-3', iterators.MultiprocessIterator,
     {'n_processes': 2, 'n_prefetch': 3}),
]


@pytest.fixture(params=KINDS, ids=[k[0] for k in KINDS])
def kind(request):
    _, cls, kwargs = request.param
    made = []

    def make(dataset, batch_size, **more):
        it = cls(dataset, batch_size, **kwargs, **more)
        made.append(it)
        return it

    yield make
    for it in made:
        it.finalize()


def dataset(n=11):
    return TupleDataset(numpy.arange(n) * 10, numpy.arange(n) % 3)


def trace(it, n):
    out = []
    for _ in range(n):
        try:
            batch = next(it)
        except StopIteration:
            batch = 'stop'
        out.append((batch if batch == 'stop' else
                    [(int(a), int(b)) for a, b in batch],
                    it.epoch, it.is_new_epoch, it.epoch_detail,
                    it.previous_epoch_detail, it.current_position))
    return out


def seeded(seed=0):
    return iterators.ShuffleOrderSampler(numpy.random.RandomState(seed))


@pytest.mark.parametrize('batch_size, repeat, n', [
    (3, True, 12), (4, False, 5), (11, True, 3), (25, True, 3),
    (5, False, 4)])
def test_same_as_serial_with_seeded_shuffle(kind, batch_size, repeat, n):
    serial = iterators.SerialIterator(dataset(), batch_size, repeat=repeat,
                                      order_sampler=seeded())
    it = kind(dataset(), batch_size, repeat=repeat, order_sampler=seeded())
    assert trace(it, n) == trace(serial, n)


def test_same_as_serial_without_shuffle(kind):
    serial = iterators.SerialIterator(dataset(), 4, shuffle=False)
    it = kind(dataset(), 4, shuffle=False)
    expected = trace(serial, 6)
    assert expected[2][0] == [(80, 2), (90, 0), (100, 1), (0, 0)]
    assert trace(it, 6) == expected


def test_resume_from_snapshot(kind, tmp_path):
    it = kind(dataset(), 4, order_sampler=seeded(3))
    serial = iterators.SerialIterator(dataset(), 4, order_sampler=seeded(3))
    trace(it, 4)
    trace(serial, 4)
    serializers.save_npz(tmp_path / 'it.npz', it)
    resumed = kind(dataset(), 4, order_sampler=seeded(42))
    serializers.load_npz(tmp_path / 'it.npz', resumed)
    expected = trace(serial, 6)
    assert trace(resumed, 6) == expected
    # Saving did not disturb the original either.
    assert trace(it, 6) == expected


def test_snapshot_interchangeable_with_serial(kind, tmp_path):
    it = kind(dataset(), 3, order_sampler=seeded(1))
    trace(it, 5)
    serializers.save_npz(tmp_path / 'it.npz', it)
    serial = iterators.SerialIterator(dataset(), 3, order_sampler=seeded(9))
    serializers.load_npz(tmp_path / 'it.npz', serial)
    back = kind(dataset(), 3, order_sampler=seeded(8))
    serializers.save_npz(tmp_path / 'serial.npz', serial)
    serializers.load_npz(tmp_path / 'serial.npz', back)
    expected = trace(it, 5)
    assert trace(serial, 5) == expected
    assert trace(back, 5) == expected


def test_reset_mid_epoch(kind):
    serial = iterators.SerialIterator(dataset(), 3, order_sampler=seeded(2))
    it = kind(dataset(), 3, order_sampler=seeded(2))
    trace(serial, 5)
    trace(it, 5)
    serial.reset()
    it.reset()
    assert it.previous_epoch_detail is None
    assert trace(it, 6) == trace(serial, 6)


def test_finalize_and_context_manager(kind):
    it = kind(dataset(), 4, shuffle=False)
    first = trace(it, 2)
    it.finalize()
    # Finalizing keeps the position; the workers start again on demand.
    assert trace(it, 1)[0][0] == [(80, 2), (90, 0), (100, 1), (0, 0)]
    with kind(dataset(), 4, shuffle=False) as other:
        assert trace(other, 2) == first
    it.finalize()
    it.finalize()  # idempotent


def test_no_repeat_stops_repeatedly(kind):
    it = kind(dataset(5), 2, repeat=False, shuffle=False)
    assert [[int(a) for a, _ in b] for b in it] == [[0, 10], [20, 30], [40]]
    for _ in range(2):
        with pytest.raises(StopIteration):
            next(it)
    assert it.epoch == 1 and it.epoch_detail == 1.0


class Failing:
    def __len__(self):
        return 4

    def __getitem__(self, i):
        if i == 2:
            raise KeyError('example 2 is broken')
        return i


@needs_fork
def test_dataset_errors_reach_the_caller(kind):
    it = kind(Failing(), 2, shuffle=False)
    assert next(it) == [0, 1]
    with pytest.raises(KeyError, match='example 2 is broken'):
        next(it)


def test_multithread_arguments():
    with pytest.raises(ValueError, match='MultithreadIterator: n_threads'):
        iterators.MultithreadIterator([1], 1, n_threads=0)
    with pytest.raises(ValueError, match='MultithreadIterator: `shuffle`'):
        iterators.MultithreadIterator([1], 1, shuffle=True,
                                      order_sampler=seeded())


def test_multiprocess_arguments():
    cls = iterators.MultiprocessIterator
    with pytest.raises(ValueError, match='MultiprocessIterator: n_processes'):
        cls([1], 1, n_processes=0)
    with pytest.raises(ValueError, match='dataset_timeout'):
        cls([1], 1, dataset_timeout=0)
    with pytest.raises(ValueError, match='shared_mem'):
        cls([1], 1, shared_mem=-1)
    it = cls([1, 2], 1, n_prefetch=0, shared_mem=1 << 20,
             maxtasksperchild=1, n_processes=1, shuffle=False)
    assert it.n_prefetch == 1 and it.n_processes == 1
    assert [next(it) for _ in range(3)] == [[1], [2], [1]]
    it.finalize()
    assert cls([1], 1).n_processes == multiprocessing.cpu_count()


def test_multithread_saves_order_under_chainer_key(tmp_path):
    it = iterators.MultithreadIterator(dataset(), 2, order_sampler=seeded())
    next(it)
    serializers.save_npz(tmp_path / 'it.npz', it)
    it.finalize()
    with numpy.load(tmp_path / 'it.npz') as f:
        assert '_order' in f.files and 'order' not in f.files


def test_multithread_reads_in_worker_threads():
    import threading
    seen = set()

    class Recording:
        def __len__(self):
            return 6

        def __getitem__(self, i):
            seen.add(threading.current_thread().name)
            return i

    with iterators.MultithreadIterator(Recording(), 3, shuffle=False,
                                       n_threads=2) as it:
        next(it)
        next(it)
    assert seen and all(n.startswith('MultithreadIterator') for n in seen)


class Slow:
    def __len__(self):
        return 2

    def __getitem__(self, i):
        time.sleep(0.3)
        return i


@needs_fork
def test_stalled_dataset_warns_and_keeps_waiting():
    it = iterators.MultiprocessIterator(Slow(), 1, shuffle=False,
                                        n_processes=1, dataset_timeout=0.05)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            assert next(it) == [0]
        assert any(issubclass(w.category,
                              iterators.MultiprocessIterator.TimeoutWarning)
                   for w in caught)
    finally:
        it.finalize()


class Dying:
    def __len__(self):
        return 4

    def __getitem__(self, i):
        if i == 2:
            import os
            os._exit(3)
        return i


@needs_fork
def test_dead_worker_raises_instead_of_hanging():
    it = iterators.MultiprocessIterator(Dying(), 2, shuffle=False,
                                        n_processes=1)
    try:
        assert next(it) == [0, 1]
        with pytest.raises(RuntimeError, match='worker process died'):
            next(it)
    finally:
        it.finalize()
