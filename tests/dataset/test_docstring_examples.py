"""The examples in the docstrings of the data modules run as written."""
import doctest
import importlib

import pytest

MODULES = [
    'cpuframe.dataset.convert',
    'cpuframe.dataset.dataset_mixin',
    'cpuframe.datasets.concatenated_dataset',
    'cpuframe.datasets.dict_dataset',
    'cpuframe.datasets.transform_dataset',
    'cpuframe.datasets.tuple_dataset',
    'cpuframe.iterators.serial_iterator',
]


@pytest.mark.parametrize('name', MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0
