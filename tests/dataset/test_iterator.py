import pytest

from cpuframe import dataset


class CountDown(dataset.Iterator):
    def __init__(self, n):
        self.n = n
        self.finalized = False

    def __next__(self):
        if self.n == 0:
            raise StopIteration
        self.n -= 1
        return [self.n]

    def finalize(self):
        self.finalized = True


def test_subclass_is_iterable_and_next_aliases():
    it = CountDown(3)
    assert iter(it) is it
    assert it.next() == [2]
    assert list(it) == [[1], [0]]


def test_context_manager_finalizes():
    with CountDown(1) as it:
        assert next(it) == [0]
    assert it.finalized


def test_base_defaults():
    it = dataset.Iterator()
    with pytest.raises(NotImplementedError, match='Iterator.*__next__'):
        next(it)
    assert it.finalize() is None
    assert it.serialize(object()) is None
    with it as same:
        assert same is it
