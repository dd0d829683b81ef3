"""PickleDataset / PickleDatasetWriter and TextDataset (Chainer's behaviour)."""
import io
import multiprocessing
import pickle

import numpy
import pytest

from cpuframe import datasets, testing

EXAMPLES = [(1, 2.0, 'hello'), (2, 3.0, 'good-bye'),
            {'x': numpy.arange(6, dtype=numpy.float32).reshape(2, 3)},
            [numpy.float64('nan'), None], 'same', 'same']


def _write(path, protocol=pickle.HIGHEST_PROTOCOL):
    with datasets.open_pickle_dataset_writer(str(path), protocol) as w:
        for example in EXAMPLES:
            w.write(example)


def _equal(a, b):
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(
            _equal(x, y) for x, y in zip(a, b))
    if isinstance(a, numpy.ndarray):
        return a.dtype == b.dtype and numpy.array_equal(a, b)
    if isinstance(a, float) and numpy.isnan(a):
        return numpy.isnan(b)
    return a == b


@testing.parameterize(*testing.product({'protocol': [2, 4, 5]}))
class TestPickleDataset:

    def test_round_trip_random_access(self, tmp_path):
        path = tmp_path / 'data.pkl'
        _write(path, self.protocol)
        with datasets.open_pickle_dataset(str(path)) as dataset:
            assert len(dataset) == len(EXAMPLES)
            for i in (3, 0, 5, 2, 1, 4, -1):
                assert _equal(dataset[i], EXAMPLES[i])
            assert [_equal(a, b) for a, b in zip(dataset[1:3], EXAMPLES[1:3])] \
                == [True, True]

    def test_same_format_as_plain_concatenated_pickles(self, tmp_path):
        # What Chainer's writer produces: one pickle.dump after another.
        path = tmp_path / 'plain.pkl'
        with open(path, 'wb') as f:
            for example in EXAMPLES:
                pickle.dump(example, f, protocol=self.protocol)
        with datasets.open_pickle_dataset(str(path)) as dataset:
            assert all(_equal(dataset[i], e) for i, e in enumerate(EXAMPLES))


def _read_all(dataset):
    return [repr(dataset[i]) for i in range(len(dataset))]


def test_forked_workers_read_their_own_file(tmp_path):
    path = tmp_path / 'data.pkl'
    _write(path)
    dataset = datasets.open_pickle_dataset(str(path))
    expected = _read_all(dataset)
    ctx = multiprocessing.get_context('fork')
    with ctx.Pool(2) as pool:
        results = pool.map(_read_all, [dataset] * 4)
    assert results == [expected] * 4
    # The parent still reads correctly after the children moved offsets.
    assert _read_all(dataset) == expected
    dataset.close()


def test_unpickled_copy_reopens(tmp_path):
    path = tmp_path / 'data.pkl'
    _write(path)
    dataset = datasets.open_pickle_dataset(str(path))
    copy = pickle.loads(pickle.dumps(dataset))
    assert _read_all(copy) == _read_all(dataset)


def test_reader_must_be_seekable():
    class Stream(io.RawIOBase):
        def seekable(self):
            return False
    with pytest.raises(ValueError, match='random access'):
        datasets.PickleDataset(Stream())


def test_in_memory_writer_and_reader():
    buf = io.BytesIO()
    w = datasets.PickleDatasetWriter(buf)
    for example in EXAMPLES[:2]:
        w.write(example)
    w.flush()
    dataset = datasets.PickleDataset(io.BytesIO(buf.getvalue()))
    assert dataset[1] == EXAMPLES[1] and len(dataset) == 2


class TestTextDataset:

    @pytest.fixture
    def files(self, tmp_path):
        a = tmp_path / 'a.txt'
        b = tmp_path / 'b.txt'
        a.write_text('first\nsecond\n\nfourth\n', encoding='utf-8')
        b.write_bytes('eins\r\nzwei\r\ndrei\r\nvier'.encode('utf-8'))
        return str(a), str(b)

    def test_single_file_lines_keep_newlines(self, files):
        dataset = datasets.TextDataset(files[0])
        assert len(dataset) == 4
        assert dataset[0] == 'first\n'
        assert dataset[2] == '\n'            # an empty line is a line
        assert dataset[3] == 'fourth\n'
        with pytest.raises(IndexError):     # as Chainer: no negative lines
            dataset[-1]
        dataset.close()

    def test_several_files_give_tuples_with_universal_newlines(self, files):
        dataset = datasets.TextDataset(list(files), encoding='utf-8')
        assert len(dataset) == 4
        assert dataset[1] == ('second\n', 'zwei\n')
        assert dataset[3] == ('fourth\n', 'vier')   # no newline at EOF

    def test_newline_option_per_file(self, files):
        dataset = datasets.TextDataset(list(files), newline=[None, ''])
        assert dataset[0] == ('first\n', 'eins\r\n')

    def test_filter_func_keeps_line_numbers_it_accepts(self, files):
        dataset = datasets.TextDataset(
            list(files), filter_func=lambda a, b: a.strip() != '')
        assert len(dataset) == 3
        assert [dataset[i][1] for i in range(3)] == ['eins\n', 'zwei\n', 'vier']

    def test_pickled_dataset_keeps_index(self, files):
        dataset = datasets.TextDataset(files[0])
        copy = pickle.loads(pickle.dumps(dataset))
        assert [copy[i] for i in range(4)] == [dataset[i] for i in range(4)]

    def test_errors(self, files, tmp_path):
        with pytest.raises(ValueError, match='at least one text file'):
            datasets.TextDataset([])
        short = tmp_path / 'short.txt'
        short.write_text('one\n')
        with pytest.raises(ValueError, match='number of lines in files does '
                                             'not match'):
            datasets.TextDataset([files[0], str(short)])
        with pytest.raises(ValueError, match='one encoding per file'):
            datasets.TextDataset(list(files), encoding=['utf-8'])
        with pytest.raises(IndexError):
            datasets.TextDataset(files[0])[4]
