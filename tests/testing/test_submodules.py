"""The names Chainer code imports from chainer.testing."""
import importlib
import os
import subprocess
import sys

import pytest

import cpuframe
from cpuframe import testing

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

SUBMODULES = ['attr', 'backend', 'condition', 'array', 'parameterized',
              'function_link', 'training', 'serializer', 'helper', 'random',
              'unary_math_function_test', 'distribution_test', 'matrix']

NAMES = ['assert_allclose', 'BackendConfig', 'inject_backend_tests',
         'FunctionTestCase', 'FunctionTestError', 'LinkTestCase',
         'LinkTestError', 'LinkInitializersTestCase', 'InitializerArgument',
         'assert_warns', 'patch', 'with_requires', 'without_requires',
         'parameterize', 'parameterize_pytest', 'product', 'product_dict',
         'from_pytest_parameterize', 'fix_random', 'generate_seed',
         'save_and_load', 'save_and_load_npz', 'save_and_load_hdf5',
         'get_trainer_with_mock_updater', 'unary_math_function_unittest',
         'distribution_unittest', 'generate_matrix', 'run_module']


@pytest.mark.parametrize('name', SUBMODULES)
def test_submodule_is_importable_and_an_attribute(name):
    module = importlib.import_module('cpuframe.testing.' + name)
    assert getattr(testing, name) is module
    assert cpuframe.testing is testing


def test_public_names():
    missing = [n for n in NAMES if not hasattr(testing, n)]
    assert not missing
    assert testing.array.assert_allclose is testing.assert_allclose
    assert testing.backend.BackendConfig is testing.BackendConfig
    assert testing.function_link.FunctionTestCase is testing.FunctionTestCase


def test_distribution_unittest_says_why():
    with pytest.raises(NotImplementedError, match='distributions'):
        testing.distribution_unittest(None, None)


def test_run_module_does_nothing_when_imported():
    testing.run_module('not_main', __file__)  # must not start pytest


def test_import_cpuframe_does_not_import_pytest_or_mock():
    code = ('import sys, cpuframe; '
            'bad = [m for m in ("pytest", "unittest.mock", "cpuframe.links",'
            ' "cpuframe.training") if m in sys.modules]; '
            'print(bad); sys.exit(1 if bad else 0)')
    out = subprocess.run([sys.executable, '-c', code], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr


def test_chainer_testing_imports_through_compat():
    code = '''
import chainer
from chainer import testing
from chainer.testing import attr, backend, condition, array
import chainer.testing.parameterized
import chainer.testing.function_link
import chainer.testing.training, chainer.testing.serializer
import chainer.testing.helper, chainer.testing.random
import chainer.testing.unary_math_function_test
import chainer.testing.distribution_test
assert testing.FunctionTestCase is chainer.testing.function_link.FunctionTestCase
assert backend.BackendConfig is testing.BackendConfig
assert type(testing).__name__ == 'module' and testing.__name__ == 'cpuframe.testing'
print('ok')
'''
    script = os.path.join(ROOT, 'tests', 'testing', '_compat_probe.py')
    with open(script, 'w') as f:
        f.write(code)
    try:
        out = subprocess.run(
            [sys.executable, '-m', 'cpuframe.compat', script], cwd=ROOT,
            capture_output=True, text=True, timeout=120)
    finally:
        os.remove(script)
    assert out.returncode == 0 and 'ok' in out.stdout, \
        out.stdout + out.stderr


def test_generate_matrix():
    import numpy
    a = testing.generate_matrix((2, 4, 3), singular_values=[3.0, 2.0, 1.0])
    assert a.shape == (2, 4, 3) and a.dtype == numpy.float64
    s = numpy.linalg.svd(a, compute_uv=False)
    numpy.testing.assert_allclose(s, [[3, 2, 1]] * 2, rtol=1e-10)
    with pytest.raises(ValueError):
        testing.generate_matrix((3, 3), singular_values=[-1, 1, 1])
    with pytest.raises(TypeError):
        testing.generate_matrix((3, 3))
