import numpy
import pytest

from cpuframe import datasets


def test_tuple_dataset_indexing():
    x = numpy.arange(10).reshape(5, 2)
    t = numpy.arange(5) * 10
    ds = datasets.TupleDataset(x, t)
    assert len(ds) == 5
    a, b = ds[3]
    numpy.testing.assert_array_equal(a, [6, 7])
    assert b == 30
    batch = ds[1:3]
    assert isinstance(batch, list) and len(batch) == 2
    numpy.testing.assert_array_equal(batch[1][0], [4, 5])
    assert batch[1][1] == 20
    assert [e[1] for e in ds[[4, 0]]] == [40, 0]
    assert [e[1] for e in ds[numpy.array([2])]] == [20]


def test_tuple_dataset_of_lists_takes_index_lists():
    ds = datasets.TupleDataset(['a', 'b', 'c'], [1, 2, 3])
    assert ds[[2, 0]] == [('c', 3), ('a', 1)]
    assert ds[numpy.array([1])] == [('b', 2)]
    assert ds[-1] == ('c', 3)


def test_tuple_dataset_errors():
    with pytest.raises(ValueError, match='TupleDataset: no datasets'):
        datasets.TupleDataset()
    with pytest.raises(ValueError, match='dataset 1 has length 2.*3'):
        datasets.TupleDataset([1, 2, 3], [1, 2])


def test_dict_dataset_indexing():
    ds = datasets.DictDataset(x=numpy.arange(4) * 2, y=['a', 'b', 'c', 'd'])
    assert len(ds) == 4
    assert ds[1] == {'x': 2, 'y': 'b'}
    assert ds[2:] == [{'x': 4, 'y': 'c'}, {'x': 6, 'y': 'd'}]
    assert ds[[3, 0]] == [{'x': 6, 'y': 'd'}, {'x': 0, 'y': 'a'}]


def test_dict_dataset_errors():
    with pytest.raises(ValueError, match='DictDataset: no datasets'):
        datasets.DictDataset()
    with pytest.raises(ValueError, match="'b' has length 1"):
        datasets.DictDataset(a=[1, 2], b=[1])
