"""Chainer's ``chainer.testing``: parameterized tests, backend injection,
function and link test harnesses, test attributes and helpers.

Heavy parts (pytest, links, serializers, training) are imported when used,
so ``import cpuframe`` stays light.
"""
# ruff: noqa: F401 - the public namespace
from cpuframe.testing import (
    array,
    attr,
    backend,
    condition,
    distribution_test,
    function_link,
    helper,
    matrix,
    parameterized,
    random,
    serializer,
    training,
    unary_math_function_test,
)
from cpuframe.testing.array import assert_allclose
from cpuframe.testing.backend import BackendConfig, inject_backend_tests
from cpuframe.testing.distribution_test import distribution_unittest
from cpuframe.testing.function_link import (
    FunctionTestCase,
    FunctionTestError,
    InitializerArgument,
    LinkInitializersTestCase,
    LinkTestCase,
    LinkTestError,
)
from cpuframe.testing.helper import (
    assert_warns,
    patch,
    with_requires,
    without_requires,
)
from cpuframe.testing.matrix import generate_matrix
from cpuframe.testing.parameterized import (
    from_pytest_parameterize,
    parameterize,
    parameterize_pytest,
    product,
    product_dict,
)
from cpuframe.testing.random import fix_random, generate_seed
from cpuframe.testing.serializer import (
    save_and_load,
    save_and_load_hdf5,
    save_and_load_npz,
)
from cpuframe.testing.training import get_trainer_with_mock_updater
from cpuframe.testing.unary_math_function_test import (
    unary_math_function_unittest,
)


def run_module(name, file):
    """Run the tests of ``file`` with pytest when ``name == '__main__'``.

    For the end of a test module: ``testing.run_module(__name__, __file__)``.
    """
    if name == '__main__':
        import pytest
        pytest.main([file, '-vvs', '-x', '--pdb'])
