import itertools
import sys
import unittest

import pytest

from cpuframe import testing
from cpuframe.testing import parameterized


def _covers_all_pairs(params, lists):
    """Whether every pair of values of two of the parameters appears."""
    keys = sorted(lists)
    for k1, k2 in itertools.combinations(keys, 2):
        for v1, v2 in itertools.product(lists[k1], lists[k2]):
            if not any(p[k1] == v1 and p[k2] == v2 for p in params):
                return False
    return True


@pytest.mark.parametrize('sizes', [
    [2, 2, 2], [3, 3, 3, 3], [2, 5, 3, 4, 2], [1, 4, 4], [6, 1, 2, 7, 3],
    [3] * 10, [2] * 15,
])
def test_pairwise_covers_all_pairs_and_is_smaller(monkeypatch, sizes):
    lists = {'p{}'.format(i): list(range(n)) for i, n in enumerate(sizes)}
    monkeypatch.setenv('CHAINER_TEST_PAIRWISE_PARAMETERIZATION', 'always')
    pairwise = testing.product(lists)
    monkeypatch.setenv('CHAINER_TEST_PAIRWISE_PARAMETERIZATION', 'never')
    full = testing.product(lists)
    assert _covers_all_pairs(pairwise, lists)
    assert all(p in full for p in pairwise)
    assert len(full) == len({tuple(sorted(p.items())) for p in full})
    largest_two = sorted(sizes)[-2:]
    assert largest_two[0] * largest_two[1] <= len(pairwise) <= len(full)
    if len(sizes) >= 4:
        assert len(pairwise) < len(full)


def test_pairwise_rows_property_exhaustively():
    for sizes in itertools.product([1, 2, 3], repeat=4):
        rows = parameterized.pairwise_indices(sizes)
        for j, k in itertools.combinations(range(4), 2):
            got = {(r[j], r[k]) for r in rows}
            assert got == set(itertools.product(range(sizes[j]),
                                                range(sizes[k])))
    assert parameterized.pairwise_indices([3, 0, 2]) == []


def test_a_broken_covering_would_be_detected():
    lists = {'a': [0, 1], 'b': [0, 1], 'c': [0, 1]}
    rows = testing.product(lists)[:-1]
    assert not _covers_all_pairs(rows[:3], lists)


def test_pairwise_product_dict(monkeypatch):
    monkeypatch.setenv('CHAINER_TEST_PAIRWISE_PARAMETERIZATION', 'always')
    a = [{'a': i} for i in range(3)]
    b = [{'b': i, 'x': i} for i in range(3)]
    c = [{'c': i} for i in range(3)]
    got = testing.product_dict(a, b, c)
    assert len(got) < 27
    assert _covers_all_pairs(got, {'a': range(3), 'b': range(3),
                                   'c': range(3)})
    assert all(p['x'] == p['b'] for p in got)  # dicts stay whole


def test_bad_mode(monkeypatch):
    monkeypatch.setenv('CHAINER_TEST_PAIRWISE_PARAMETERIZATION', 'sometimes')
    with pytest.raises(ValueError, match='sometimes'):
        testing.product({'a': [1]})


def test_product_with_tuple_keys():
    got = testing.product({('a', 'b'): [(1, 2), (3, 4)], 'c': [5]})
    assert got == [{'a': 1, 'b': 2, 'c': 5}, {'a': 3, 'b': 4, 'c': 5}]
    with pytest.raises(ValueError):
        testing.product({('a', 'b'): [(1,)]})
    with pytest.raises(TypeError):
        testing.product('abc')


def _double(x):
    return 2 * x


@testing.parameterize({'f': _double, 'n': 1}, {'f': abs, 'n': -2})
class TestFunctionParameters(unittest.TestCase):

    def test_function_is_not_bound(self):
        assert self.f(self.n) == 2


@testing.parameterize_pytest('x,y', [(1, 2), (3, 4)])
class TestParameterizePytest:

    def test_values(self):
        assert (self.x, self.y) in ((1, 2), (3, 4))


@testing.parameterize({'p': 1}, {'p': 2})
@testing.parameterize({'q': 'a'}, {'q': 'b'}, {'q': 'c'})
class TestStackedParameterize:

    def test_both(self):
        assert self.p in (1, 2) and self.q in 'abc'


def test_stacked_parameterize_makes_the_product():
    module = sys.modules[__name__]
    generated = [v for n, v in vars(module).items()
                 if n.startswith('TestStackedParameterize_')]
    assert len(generated) == 6
    assert {(c.p, c.q) for c in generated} == set(
        itertools.product([1, 2], 'abc'))
    assert list(testing.parameterized.from_pytest_parameterize(
        'x', [1, 2])) == [{'x': 1}, {'x': 2}]


def test_failure_names_the_parameters():
    @testing.parameterize({'v': 3})
    class TestLocal(unittest.TestCase):
        def test_fail(self):
            assert self.v == 4

    cls, = testing._bundle.generated_classes(TestLocal)
    with pytest.raises(AssertionError) as info:
        cls('test_fail').test_fail()
    assert 'v=3' in ''.join(getattr(info.value, '__notes__', []))
