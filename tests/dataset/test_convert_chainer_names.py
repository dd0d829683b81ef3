"""chainer.dataset.convert names: concat_examples_func,
ConcatWithAsyncTransfer, Conveyor (synchronous on the CPU)."""
import numpy
import pytest

from cpuframe import dataset
from cpuframe.dataset import convert


def _batch():
    return [(numpy.array([1, 2]), 0), (numpy.array([3]), 1)]


def test_concat_examples_func_is_the_plain_function():
    x, t = convert.concat_examples_func(_batch(), padding=-1)
    numpy.testing.assert_array_equal(x, [[1, 2], [3, -1]])
    numpy.testing.assert_array_equal(t, [0, 1])
    x, t = convert.concat_examples_func(_batch(), -1, -1)
    assert isinstance(x, numpy.ndarray)
    assert not isinstance(convert.concat_examples_func, convert.Converter)


def test_concat_with_async_transfer_matches_concat_examples():
    conv = dataset.ConcatWithAsyncTransfer()
    assert conv is not None and dataset.ConcatWithAsyncTransfer is \
        convert.ConcatWithAsyncTransfer
    batch = [{'x': numpy.ones(2), 'y': 1}, {'x': numpy.zeros(2), 'y': 2}]
    out = conv(batch, -1)
    numpy.testing.assert_array_equal(out['x'], [[1, 1], [0, 0]])
    numpy.testing.assert_array_equal(out['y'], [1, 2])
    x, t = conv(_batch(), -1, padding=(-1, 0))
    numpy.testing.assert_array_equal(x, [[1, 2], [3, -1]])
    with pytest.raises(ValueError, match='device is different'):
        conv(_batch(), None, padding=-1)
    with pytest.raises(ValueError, match='batch is empty'):
        conv([], -1)


def test_conveyor_returns_in_order():
    c = convert.Conveyor(-1)
    c.put(numpy.array([1]))
    c.put(numpy.array([2]))
    assert c.get().tolist() == [1]
    assert c.get(sync=False).tolist() == [2]
    with pytest.raises(IndexError):
        c.get()
