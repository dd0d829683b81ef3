"""The docstring examples of the word2vec losses and the math/array/util
additions run (kept apart from test_docstring_examples.py's list)."""
import doctest
import importlib

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
import cpuframe.links as L

MODULES = [
    'cpuframe.functions.array.permutate',
    'cpuframe.functions.evaluation.r2_score',
    'cpuframe.functions.loss.cross_covariance',
    'cpuframe.functions.loss.hierarchical_softmax',
    'cpuframe.functions.loss.negative_sampling',
    'cpuframe.functions.math.arctan2',
    'cpuframe.functions.math.batch_l2_norm_squared',
    'cpuframe.functions.math.cumprod',
    'cpuframe.functions.math.einsum',
    'cpuframe.functions.util.forget',
    'cpuframe.links.loss.hierarchical_softmax',
    'cpuframe.utils.walker_alias',
]


@pytest.mark.parametrize('name', MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    globs = {'np': numpy, 'F': F, 'L': L, 'cpuframe': cpuframe}
    result = doctest.testmod(module, globs=globs,
                             optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0
