import sys

from cpuframe import testing


def test_product_of_dict():
    assert testing.product({'a': [1, 2], 'b': ['x']}) == [
        {'a': 1, 'b': 'x'}, {'a': 2, 'b': 'x'}]


def test_product_of_lists_of_dicts():
    got = testing.product([[{'a': 1}, {'a': 2}], [{'b': 3}]])
    assert got == [{'a': 1, 'b': 3}, {'a': 2, 'b': 3}]
    assert testing.product_dict([{'a': 1}], [{'b': 2}, {'b': 3}]) == [
        {'a': 1, 'b': 2}, {'a': 1, 'b': 3}]


@testing.parameterize(*testing.product({'n': [1, 2], 'm': [10]}))
class TestGenerated:
    def test_has_parameters(self):
        assert self.n in (1, 2) and self.m == 10


def test_generated_classes_exist_and_base_is_hidden():
    module = sys.modules[__name__]
    names = [n for n in vars(module) if n.startswith('TestGenerated_param_')]
    assert len(names) == 2
    assert TestGenerated.__test__ is False
    assert all(getattr(module, n).__test__ for n in names)
    assert {getattr(module, n).n for n in names} == {1, 2}
