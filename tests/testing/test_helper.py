import os
import unittest
import warnings
from unittest import mock

import numpy
import pytest

from cpuframe import testing
from cpuframe.testing import helper


def test_requirements_checked_against_installed_versions():
    assert helper._check_requirements(['numpy>=1.10'])
    assert helper._check_requirements(['numpy>=1.10', 'pytest'])
    assert not helper._check_requirements(['numpy<1.0'])
    assert not helper._check_requirements(['numpy>=1.10', 'numpy<1.0'])
    assert not helper._check_requirements(
        ['surely-not-installed-cpuframe-dist'])
    major = int(numpy.__version__.split('.')[0])
    assert helper._check_requirements(['numpy=={}.*'.format(major)])


def test_simple_version_compare_without_packaging():
    assert helper._satisfies_simple('1.26.4', '>=1.10')
    assert not helper._satisfies_simple('1.9.0', '>=1.10')
    assert helper._satisfies_simple('2.0', '>=1.10,<3')
    assert not helper._satisfies_simple('3.0.1', '>=1.10,<3')
    assert helper._satisfies_simple('1.10.0', '==1.10')
    with mock.patch.dict('sys.modules', {'packaging.requirements': None}):
        assert helper._satisfied('numpy>=1.10')
        assert not helper._satisfied('numpy<1.0')


class TestWithRequires(unittest.TestCase):
    __test__ = False  # run through unittest by test_with_requires_skips


    @testing.with_requires('numpy>=1.10')
    def test_runs(self):
        pass

    @testing.with_requires('numpy<1.0')
    def test_skipped(self):
        raise AssertionError('must not run')

    @testing.without_requires('numpy<1.0')
    def test_without_runs(self):
        pass

    @testing.without_requires('numpy>=1.10')
    def test_without_skipped(self):
        raise AssertionError('must not run')


def test_with_requires_skips():
    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(
        TestWithRequires).run(result)
    assert result.testsRun == 4
    assert result.wasSuccessful()
    assert sorted(t._testMethodName for t, _ in result.skipped) == [
        'test_skipped', 'test_without_skipped']


def test_assert_warns():
    with testing.assert_warns(DeprecationWarning):
        warnings.warn('x', DeprecationWarning, stacklevel=1)
    with pytest.raises(AssertionError, match='DeprecationWarning not '
                       'triggered'):
        with testing.assert_warns(DeprecationWarning):
            warnings.warn('x', UserWarning, stacklevel=1)
    # Even a warning already shown once is caught again.
    for _ in range(2):
        with testing.assert_warns(RuntimeWarning):
            warnings.warn('again', RuntimeWarning, stacklevel=1)


def test_patch_wraps_the_original():
    with testing.patch('os.path.join') as join:
        assert os.path.join('a', 'b') == 'a' + os.sep + 'b'  # still works
        join.assert_called_once_with('a', 'b')
    assert not isinstance(os.path.join, mock.Mock)
    with testing.patch('os.path.join', wraps=lambda *a: 'X') as join:
        assert os.path.join('a') == 'X'
    with pytest.raises(RuntimeError):
        testing.patch('not_imported_module_xyz.f')
