import numpy
import pytest

from cpuframe import datasets


def test_concatenated_dataset():
    ds = datasets.ConcatenatedDataset([1, 2, 3], numpy.array([4, 5]), [], [6])
    assert len(ds) == 6
    assert [ds[i] for i in range(6)] == [1, 2, 3, 4, 5, 6]
    assert ds[-1] == 6 and ds[-6] == 1
    assert ds[2:5] == [3, 4, 5]
    assert ds[[5, 0]] == [6, 1]
    with pytest.raises(IndexError, match='ConcatenatedDataset'):
        ds[6]
    with pytest.raises(IndexError):
        ds[-7]
    assert len(datasets.ConcatenatedDataset()) == 0


def test_transform_dataset_applies_on_each_access():
    calls = []

    def transform(example):
        calls.append(example)
        x, t = example
        return x * 2, t

    base = datasets.TupleDataset(numpy.arange(4), numpy.arange(4) % 2)
    ds = datasets.TransformDataset(base, transform)
    assert len(ds) == 4
    assert ds[3] == (6, 1)
    assert ds[0:2] == [(0, 0), (2, 1)]
    ds[3]
    assert len(calls) == 4


def test_transform_dataset_needs_callable():
    with pytest.raises(TypeError, match='TransformDataset: transform'):
        datasets.TransformDataset([1], 'not callable')
