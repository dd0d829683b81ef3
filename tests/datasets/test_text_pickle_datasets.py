"""chainer.datasets.TextDataset and PickleDataset."""
import io
import multiprocessing
import pickle

import numpy
import pytest

from cpuframe import datasets


def _write(path, text):
    with open(str(path), 'w', newline='') as f:
        f.write(text)
    return str(path)


def test_text_dataset_single_file(tmp_path):
    p = _write(tmp_path / 'a.txt', 'one\ntwo\n\nfour\n')
    ds = datasets.TextDataset(p)
    assert len(ds) == 4
    assert ds[0] == 'one\n' and ds[3] == 'four\n' and ds[2] == '\n'
    assert ds[1:3] == ['two\n', '\n']
    with pytest.raises(IndexError):
        ds.get_example(4)
    ds.close()


def test_text_dataset_parallel_files_and_filter(tmp_path):
    a = _write(tmp_path / 'a.txt', 'x1\nx2\nx3\n')
    b = _write(tmp_path / 'b.txt', 'y1\n\ny3\n')
    ds = datasets.TextDataset([a, b],
                              filter_func=lambda s, t: t.strip() != '')
    assert len(ds) == 2
    assert ds[0] == ('x1\n', 'y1\n') and ds[1] == ('x3\n', 'y3\n')
    # Survives pickling (offsets kept, files reopened).
    ds2 = pickle.loads(pickle.dumps(ds))
    assert ds2[1] == ('x3\n', 'y3\n')


def test_text_dataset_errors(tmp_path):
    a = _write(tmp_path / 'a.txt', '1\n2\n')
    b = _write(tmp_path / 'b.txt', '1\n')
    with pytest.raises(ValueError, match='number of lines'):
        datasets.TextDataset([a, b])
    with pytest.raises(ValueError, match='at least one'):
        datasets.TextDataset([])
    with pytest.raises(ValueError, match='length of each option'):
        datasets.TextDataset([a, a], encoding=['utf-8'])


def test_text_dataset_encoding(tmp_path):
    p = str(tmp_path / 'l1.txt')
    with open(p, 'wb') as f:
        f.write('caf\xe9\n'.encode('latin-1'))
    assert datasets.TextDataset(p, encoding='latin-1')[0] == 'caf\xe9\n'


def test_pickle_dataset_roundtrip(tmp_path):
    path = str(tmp_path / 'data.pkl')
    with datasets.open_pickle_dataset_writer(path) as w:
        w.write((1, 2.0, 'hello'))
        w.write({'x': numpy.arange(3)})
        w.flush()
    with datasets.open_pickle_dataset(path) as ds:
        assert len(ds) == 2
        assert ds[0] == (1, 2.0, 'hello')
        numpy.testing.assert_array_equal(ds[1]['x'], [0, 1, 2])
        assert ds[0] == (1, 2.0, 'hello')  # random access again
        ds2 = pickle.loads(pickle.dumps(ds))
        assert ds2[0] == (1, 2.0, 'hello')
        ds2.close()


def test_pickle_dataset_over_bytesio():
    buf = io.BytesIO()
    w = datasets.PickleDatasetWriter(buf)
    for i in range(3):
        w.write(i * 10)
    ds = datasets.PickleDataset(buf)
    assert [ds[i] for i in range(3)] == [0, 10, 20]


def test_pickle_dataset_needs_seekable_reader():
    class NoSeek(io.RawIOBase):
        def seekable(self):
            return False

    with pytest.raises(ValueError, match='random access'):
        datasets.PickleDataset(NoSeek())


def _read_in_child(ds, q):
    q.put(ds[1])


def test_pickle_dataset_in_forked_child(tmp_path):
    path = str(tmp_path / 'data.pkl')
    with datasets.open_pickle_dataset_writer(path) as w:
        w.write('a')
        w.write('b')
    ds = datasets.open_pickle_dataset(path)
    ctx = multiprocessing.get_context('fork')
    q = ctx.Queue()
    p = ctx.Process(target=_read_in_child, args=(ds, q))
    p.start()
    assert q.get(timeout=30) == 'b'
    p.join(30)
    assert ds[0] == 'a'
    ds.close()
