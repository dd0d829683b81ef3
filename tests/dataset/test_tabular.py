"""chainer.dataset.tabular: TabularDataset and its views, from_data,
DelegateDataset."""
import numpy
import pytest

from cpuframe import dataset
from cpuframe.dataset import tabular


class Table(dataset.TabularDataset):
    """Rows i = (10 i, 10 i + 1, 10 i + 2) under keys a, b, c."""

    def __init__(self, n=5, mode=tuple, offset=0, keys=('a', 'b', 'c')):
        self.n, self._mode, self.offset, self._keys = n, mode, offset, keys
        self.calls = []

    def __len__(self):
        return self.n

    @property
    def keys(self):
        return self._keys

    @property
    def mode(self):
        return self._mode

    def get_examples(self, indices, key_indices):
        self.calls.append((indices, key_indices))
        data = (numpy.arange(self.n)[:, None] * 10 + self.offset +
                numpy.arange(len(self._keys))[None])
        if indices is not None:
            data = data[indices]
        if key_indices is not None:
            data = data[:, list(key_indices)]
        return tuple(data.T)


def rows(ds):
    return [ds[i] for i in range(len(ds))]


def test_basic_access_and_modes():
    t = Table()
    assert len(t) == 5 and t.keys == ('a', 'b', 'c')
    assert t[1] == (10, 11, 12)
    assert t.asdict()[1] == {'a': 10, 'b': 11, 'c': 12}
    assert t.asdict().astuple()[2] == (20, 21, 22)
    assert list(t)[4] == (40, 41, 42)
    assert t[1:3] == [(10, 11, 12), (20, 21, 22)]
    f = t.fetch()
    assert isinstance(f, tuple) and list(f[1]) == [1, 11, 21, 31, 41]
    assert sorted(t.asdict().fetch()) == ['a', 'b', 'c']
    assert isinstance(dataset.TabularDataset, type)
    assert dataset.tabular.TabularDataset is dataset.TabularDataset


def test_slice_rows_and_keys():
    t = Table()
    v = t.slice[[3, 2], ('c', 0)]
    assert len(v) == 2 and v.keys == ('c', 'a')
    assert v[1] == (22, 20) and v.asdict()[1] == {'c': 22, 'a': 20}
    assert rows(t.slice[1:5:2]) == [(10, 11, 12), (30, 31, 32)]
    assert rows(t.slice[::-2, 'b']) == [41, 21, 1]
    assert t.slice[:, 'b'].mode is None
    assert t.slice[:, ('b',)].mode is tuple
    assert rows(t.slice[[True, False, False, False, True], -1]) == [2, 42]
    assert rows(t.slice[[-1, 0]]) == [(40, 41, 42), (0, 1, 2)]
    # Slices of slices compose.
    assert rows(t.slice[1:][::2]) == [(10, 11, 12), (30, 31, 32)]
    assert rows(t.slice[::-1][1:3]) == [(30, 31, 32), (20, 21, 22)]
    assert rows(t.slice[[4, 0, 2]][1:]) == [(0, 1, 2), (20, 21, 22)]
    assert rows(t.slice[1:4][[2, 0]]) == [(30, 31, 32), (10, 11, 12)]
    assert t.slice[:, ('c', 'a')].slice[:, 'a'][0] == 0
    assert len(t.slice[[]]) == 0


def test_slice_errors():
    t = Table()
    with pytest.raises(IndexError, match='out of bounds'):
        t.slice[[5]]
    with pytest.raises(ValueError, match='number of booleans'):
        t.slice[[True, False]]
    with pytest.raises(KeyError):
        t.slice[:, 'z']
    with pytest.raises(IndexError):
        t.slice[:, 3]


def test_concat():
    a, b = Table(3), Table(2, offset=100)
    c = a.concat(b)
    assert len(c) == 5 and c.keys == a.keys and c.mode is tuple
    assert rows(c.slice[:, 'a']) == [0, 10, 20, 100, 110]
    assert rows(c.slice[[4, 0, 3], 'b']) == [111, 1, 101]
    assert rows(c.slice[::-2, 'a']) == [110, 20, 0]
    assert list(c.fetch()[2]) == [2, 12, 22, 102, 112]
    # Rows from one dataset only go to that dataset.
    b.calls.clear()
    assert c.slice[:2, 'a'][1] == 10 and b.calls == []
    with pytest.raises(ValueError, match='same keys'):
        a.concat(Table(keys=('x', 'y', 'z')))


def test_join():
    a = Table(3)
    b = Table(3, offset=100, keys=('d', 'e'))
    j = a.join(b)
    assert j.keys == ('a', 'b', 'c', 'd', 'e') and j.mode is tuple
    assert j[1] == (10, 11, 12, 110, 111)
    assert j.slice[:, ('e', 'a', 'e')][2] == (121, 20, 121)
    assert j.asdict()[0]['d'] == 100
    assert a.slice[:, 'a'].join(b.slice[:, 'd']).mode is tuple
    with pytest.raises(ValueError, match='same length'):
        a.join(Table(4, keys=('x',)))
    with pytest.raises(ValueError, match='unique'):
        a.join(Table(3, keys=('a',)))


def test_transform_per_example():
    t = Table(3)
    tr = t.transform(('s', 'p'), lambda a, b, c: (a + b, a * c))
    assert tr.keys == ('s', 'p') and tr.mode is tuple
    assert tr[1] == (21, 120)
    assert tr.slice[:, 'p'][2] == 20 * 22
    d = t.asdict().transform(('s',), lambda a, b, c: {'s': a + b + c})
    assert d.mode is dict and d[1] == {'s': 33}
    single = t.transform('s', lambda a, b, c: a - c)
    assert single.mode is None and single[2] == -2
    flip = t.transform('x', lambda a, b, c: (a,) if a else a)
    flip[1]  # a tuple first
    with pytest.raises(ValueError, match='must not change its return type'):
        flip[0]


def test_transform_batch():
    t = Table(4)
    tb = t.transform_batch(('s',), lambda a, b, c: a + b)
    assert tb.mode is None and rows(tb) == [1, 21, 41, 61]
    tt = t.transform_batch(('x', 'y'), lambda a, b, c: (a, c))
    assert tt.mode is tuple and tt.slice[1:3][1] == (20, 22)
    bad = t.transform_batch(('x',), lambda a, b, c: a[:1])
    with pytest.raises(ValueError, match='length'):
        bad.slice[:2].fetch()


def test_convert_and_with_converter():
    t = Table(3)
    a, b, c = t.convert(t.fetch())
    assert isinstance(a, numpy.ndarray) and a.tolist() == [0, 10, 20]
    lists = tabular.from_data(([1, 2], [3, 4]))
    x, y = lists.convert(lists.fetch())
    assert isinstance(x, numpy.ndarray) and y.tolist() == [3, 4]
    w = t.with_converter(lambda a, b, c: a + c)
    assert w.convert(w.fetch()).tolist() == [2, 22, 42]
    wd = t.asdict().with_converter(lambda a, b, c: b)
    assert wd.convert(wd.fetch()).tolist() == [1, 11, 21]
    # Views keep the converter of their source.
    assert w.slice[:2].convert(w.slice[:2].fetch()).tolist() == [2, 22]


def test_from_data_forms():
    d = tabular.from_data([0, 1, 2])
    assert d.mode is None and d[2] == 2 and len(d.keys) == 1
    d = tabular.from_data(numpy.arange(3) * 2)
    assert d[1] == 2 and d.slice[[2, 0]].fetch().tolist() == [4, 0]
    d = tabular.from_data(([0, 1, 2], [3, 4, 5]))
    assert d[0] == (0, 3) and d.mode is tuple
    d = tabular.from_data((('a', [0, 1, 2]), ('b', [3, 4, 5])))
    assert d.keys == ('a', 'b') and d[0] == (0, 3)
    d = tabular.from_data({'a': [0, 1, 2], 'b': [3, 4, 5]})
    assert d[0] == {'a': 0, 'b': 3}
    d = tabular.from_data(('a', lambda i: i * i), size=10)
    assert d[5] == 25 and len(d) == 10
    d = tabular.from_data((('x', [1, 2, 3]),
                           (('y', 'z'), lambda i: (i, -i))))
    assert d.keys == ('x', 'y', 'z') and d[2] == (3, 2, -2)
    d = tabular.from_data({'x': [1, 2], ('y', 'z'): lambda i: {'y': i,
                                                               'z': 2 * i}})
    assert d[1] == {'x': 2, 'y': 1, 'z': 2}
    with pytest.raises(ValueError, match='size'):
        tabular.from_data(('a', lambda i: i))
    with pytest.raises(ValueError, match='key'):
        tabular.from_data(([1, 2], lambda i: i))


def test_delegate_dataset():
    class MyDataset(tabular.DelegateDataset):
        def __init__(self):
            super().__init__(tabular.from_data((
                ('a', numpy.arange(10)),
                ('b', self.get_b),
                ('c', [3, 1, 4, 5, 9, 2, 6, 8, 7, 0]),
                (('d', 'e'), self.get_de))))

        def get_b(self, i):
            return 'b[{}]'.format(i)

        def get_de(self, i):
            return {'d': 'd[{}]'.format(i), 'e': 'e[{}]'.format(i)}

    ds = MyDataset()
    assert len(ds) == 10 and ds.keys == ('a', 'b', 'c', 'd', 'e')
    assert ds[0] == (0, 'b[0]', 3, 'd[0]', 'e[0]')
    assert ds.slice[[9], ('e', 'c')][0] == ('e[9]', 0)
