import numpy
import pytest

from cpuframe import dataset


class Squares(dataset.DatasetMixin):
    def __init__(self, n):
        self.n = n
        self.calls = []

    def __len__(self):
        return self.n

    def get_example(self, i):
        if not -self.n <= i < self.n:
            raise IndexError(i)
        self.calls.append(i)
        return (i % self.n) ** 2


def test_int_index():
    ds = Squares(6)
    assert ds[3] == 9
    assert ds[-1] == 25


@pytest.mark.parametrize('index, expected', [
    (slice(1, 4), [1, 4, 9]),
    (slice(None, None, 2), [0, 4, 16]),
    (slice(None, None, -2), [25, 9, 1]),
    (slice(-2, None), [16, 25]),
    (slice(4, 100), [16, 25]),
    ([4, 0, 4], [16, 0, 16]),
    (numpy.array([5, 1]), [25, 1]),
    ([], []),
])
def test_batch_index(index, expected):
    assert Squares(6)[index] == expected


def test_slice_calls_get_example_once_per_item():
    ds = Squares(6)
    ds[1:5]
    assert ds.calls == [1, 2, 3, 4]


def test_out_of_range_propagates_index_error():
    with pytest.raises(IndexError):
        Squares(3)[3]


def test_iteration_through_getitem_stops():
    # The legacy sequence protocol stops at IndexError.
    assert list(Squares(4)) == [0, 1, 4, 9]


def test_abstract_methods_name_the_class():
    class Empty(dataset.DatasetMixin):
        pass

    with pytest.raises(NotImplementedError, match='Empty.*__len__'):
        len(Empty())
    with pytest.raises(NotImplementedError, match='Empty.*get_example'):
        Empty()[0]
