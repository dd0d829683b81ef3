import numpy
import pytest

from cpuframe import backend, dataset
from cpuframe.dataset import convert


def test_tuples_become_tuple_of_arrays():
    batch = [(numpy.array([1, 2], numpy.float32), 0),
             (numpy.array([3, 4], numpy.float32), 1),
             (numpy.array([5, 6], numpy.float32), 2)]
    x, t = dataset.concat_examples(batch)
    assert x.dtype == numpy.float32 and x.shape == (3, 2)
    numpy.testing.assert_array_equal(x, [[1, 2], [3, 4], [5, 6]])
    numpy.testing.assert_array_equal(t, [0, 1, 2])


def test_dicts_become_dict_of_arrays():
    batch = [{'x': numpy.array([1., 2.]), 't': numpy.int32(0)},
             {'x': numpy.array([3., 4.]), 't': numpy.int32(1)}]
    out = dataset.concat_examples(batch)
    assert set(out) == {'x', 't'}
    numpy.testing.assert_array_equal(out['x'], [[1, 2], [3, 4]])
    assert out['t'].dtype == numpy.int32
    numpy.testing.assert_array_equal(out['t'], [0, 1])


def test_arrays_and_scalars_become_one_array():
    out = dataset.concat_examples([numpy.zeros((2, 3)), numpy.ones((2, 3))])
    assert out.shape == (2, 2, 3)
    numpy.testing.assert_array_equal(out[1], numpy.ones((2, 3)))
    numpy.testing.assert_array_equal(
        dataset.concat_examples([1.5, 2.5]), [1.5, 2.5])


def test_padding_scalar():
    batch = [(numpy.array([1, 2]), 0), (numpy.array([3]), 1),
             (numpy.array([], dtype=int), 2)]
    x, t = dataset.concat_examples(batch, padding=100)
    numpy.testing.assert_array_equal(x, [[1, 2], [3, 100], [100, 100]])
    numpy.testing.assert_array_equal(t, [0, 1, 2])


def test_padding_per_element_and_2d():
    batch = [(numpy.ones((1, 3), numpy.float32), numpy.array([0])),
             (numpy.full((2, 1), 2, numpy.float32), numpy.array([], int))]
    x, t = dataset.concat_examples(batch, padding=(-1, 7))
    assert x.shape == (2, 2, 3) and x.dtype == numpy.float32
    numpy.testing.assert_array_equal(
        x, [[[1, 1, 1], [-1, -1, -1]], [[2, -1, -1], [2, -1, -1]]])
    numpy.testing.assert_array_equal(t, [[0], [7]])


def test_padding_dict_per_key():
    batch = [{'a': numpy.array([1, 2]), 'b': numpy.array([5])},
             {'a': numpy.array([3]), 'b': numpy.array([6, 7])}]
    out = dataset.concat_examples(batch, padding={'a': 0, 'b': -1})
    numpy.testing.assert_array_equal(out['a'], [[1, 2], [3, 0]])
    numpy.testing.assert_array_equal(out['b'], [[5, -1], [6, 7]])


def test_padding_ragged_python_lists():
    out = dataset.concat_examples([[1, 2, 3], [4]], padding=0)
    numpy.testing.assert_array_equal(out, [[1, 2, 3], [4, 0, 0]])


def test_shape_mismatch_without_padding_is_clear():
    batch = [numpy.zeros(2), numpy.zeros(3)]
    with pytest.raises(ValueError, match=r'concat_examples.*\(2,\).*\(3,\).*'
                                         r'padding'):
        dataset.concat_examples(batch)


def test_empty_batch():
    with pytest.raises(ValueError, match='concat_examples: batch is empty'):
        dataset.concat_examples([])


def test_inconsistent_tuples():
    with pytest.raises(ValueError, match='example 1'):
        dataset.concat_examples([(1, 2), (3,)])


def test_missing_dict_key():
    with pytest.raises(ValueError, match="'b'"):
        dataset.concat_examples([{'a': 1, 'b': 2}, {'a': 3}])


@pytest.mark.parametrize('device', [None, -1, '@numpy', backend.cpu_device])
def test_device_argument(device):
    x, = dataset.concat_examples([(numpy.zeros(2),)], device)
    assert type(x) is numpy.ndarray


def test_device_sends_through_get_device(monkeypatch):
    sent = []

    class Recorder(backend.CpuDevice):
        def send_array(self, array):
            sent.append(array.shape)
            return array

    real = backend.get_device
    monkeypatch.setattr(backend, 'get_device',
                        lambda spec: Recorder() if spec == 'rec' else real(spec))
    dataset.concat_examples([(numpy.zeros(2), 1)], device='rec')
    assert sent == [(1, 2), (1,)]


def test_converter_decorator_passes_a_device():
    seen = []

    @dataset.converter()
    def conv(batch, device):
        seen.append(device)
        return batch

    assert isinstance(conv, dataset.Converter)
    assert conv.__name__ == 'conv'
    conv([1], -1)
    conv([1], device='@numpy')
    conv([1], None)
    assert seen[0] == backend.cpu_device and seen[1] == backend.cpu_device
    assert seen[2] is None
    assert isinstance(dataset.concat_examples, dataset.Converter)


def test_converter_rejects_non_callable():
    with pytest.raises(TypeError, match='converter'):
        dataset.converter()(3)


def test_converter_subclass():
    class Twice(dataset.Converter):
        def __call__(self, batch, device):
            return [2 * b for b in batch]

    assert Twice()([1, 2], None) == [2, 4]
    with pytest.raises(NotImplementedError):
        dataset.Converter()([1], None)


def test_call_converter_old_style_gets_minus_one():
    got = []
    convert._call_converter(lambda b, d: got.append(d), [1], '@numpy')
    convert._call_converter(lambda b, d: got.append(d), [1], None)
    assert got == [-1, None]


def test_to_device():
    x = numpy.arange(3)
    assert dataset.to_device(None, x) is x
    y = dataset.to_device(-1, x)
    numpy.testing.assert_array_equal(y, x)
    out = dataset.to_device('@numpy', {'a': x, 'b': (x, None)})
    assert out['b'][1] is None
    with pytest.raises(ValueError, match='get_device'):
        dataset.to_device('nonsense', x)


def _halve(batch, device):
    return [b / 2 for b in batch]


def test_decorated_converters_pickle():
    # a converter made by the decorator pickles by its module-level name
    # (worker processes receive it so), others by their function
    import pickle
    assert pickle.loads(pickle.dumps(dataset.concat_examples)) is \
        dataset.concat_examples
    wrapped = dataset.converter()(_halve)   # not bound to a module name
    copy = pickle.loads(pickle.dumps(wrapped))
    assert copy is not wrapped and copy.base_callable is _halve
    assert copy([2, 4], None) == [1, 2]
