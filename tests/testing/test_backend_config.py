import unittest

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import backend, testing
from cpuframe.backends import cuda, intel64

needs_intel64 = pytest.mark.skipif(not intel64.is_ideep_available(),
                                   reason='no oneDNN module')


def test_defaults_are_the_numpy_device():
    config = testing.BackendConfig({})
    assert config.use_cuda is False and config.use_chainerx is False
    assert config.use_ideep == 'never' and config.use_cudnn == 'never'
    assert config.device == backend.cpu_device
    assert config.xp is numpy
    x = config.get_array(numpy.ones((2, 3), numpy.float32))
    assert type(x) is numpy.ndarray
    assert config.get_pytest_marks() == []


@needs_intel64
def test_ideep_config_is_the_intel64_device():
    config = testing.BackendConfig({'use_ideep': 'always'})
    assert config.device == backend.get_device('@intel64')
    assert config.xp is numpy
    x, n = config.get_array((numpy.ones((2, 3), numpy.float32),
                             numpy.arange(3)))
    assert isinstance(x, intel64.mdarray)
    assert type(n) is numpy.ndarray  # integers stay NumPy
    assert config.get_pytest_marks() == [testing.attr.ideep]


@needs_intel64
def test_context_applies_config_and_restores():
    before = cpuframe.config.use_ideep
    config = testing.BackendConfig({'use_ideep': 'always',
                                    'autotune': True})
    with config as entered:
        assert entered is config
        assert cpuframe.config.use_ideep == 'always'
        assert cpuframe.config.autotune is True
        assert cpuframe.config.use_cudnn == 'never'
        y = F.relu(config.get_array(numpy.ones((2, 3), numpy.float32)))
        assert isinstance(y.array, intel64.mdarray)
        with config:  # re-entrant
            assert cpuframe.config.use_ideep == 'always'
        assert cpuframe.config.use_ideep == 'always'
    assert cpuframe.config.use_ideep == before
    assert cpuframe.config.autotune is False


def test_context_restores_on_error():
    before = cpuframe.config.use_cudnn
    with pytest.raises(ZeroDivisionError):
        with testing.BackendConfig({'use_cudnn': 'always'}):
            assert cpuframe.config.use_cudnn == 'always'
            raise ZeroDivisionError
    assert cpuframe.config.use_cudnn == before


def test_cuda_config():
    config = testing.BackendConfig({'use_cuda': True, 'use_cudnn': 'always'})
    assert config.cuda_device == 0  # the default device
    marks = config.get_pytest_marks()
    assert testing.attr.cudnn in marks and len(marks) == 2
    if not cuda.available:
        with pytest.raises(RuntimeError):
            _ = config.device


def test_chainerx_config_is_refused_clearly():
    with pytest.raises(ValueError, match='chainerx_device'):
        testing.BackendConfig({'use_chainerx': True})
    config = testing.BackendConfig({'use_chainerx': True,
                                    'chainerx_device': 'cuda:1'})
    marks = config.get_pytest_marks()
    assert testing.attr.chainerx in marks and len(marks) == 2
    with pytest.raises(RuntimeError, match='ChainerX'):
        _ = config.device


def test_bad_params():
    with pytest.raises(TypeError):
        testing.BackendConfig([('use_cuda', True)])
    with pytest.raises(ValueError, match='unknown parameter'):
        testing.BackendConfig({'use_gpu': True})
    # Chainer accepts any use_ideep value here; the ops reject it (below).
    assert testing.BackendConfig({'use_ideep': True}).use_ideep is True


def test_func_str_and_repr_name_the_settings():
    config = testing.BackendConfig({'use_ideep': 'always'})
    assert 'use_ideep_always' in config.get_func_str()
    assert config.get_func_str().isidentifier()
    assert "use_ideep='always'" in repr(config)


def test_inject_backend_tests_argument_checks():
    with pytest.raises(TypeError):
        testing.inject_backend_tests('test_a', [{}])
    with pytest.raises(TypeError):
        testing.inject_backend_tests(None, {})
    with pytest.raises(TypeError):
        testing.inject_backend_tests(None, [1])


# --- injection on unittest and plain classes ------------------------------

_seen = []


@testing.inject_backend_tests(['test_injected'],
                              [{}, {'use_ideep': 'always'},
                               {'use_cuda': True}])
class TestInjectUnittest(unittest.TestCase):

    def test_injected(self, backend_config):
        _seen.append(('unittest', backend_config.use_ideep))
        assert isinstance(backend_config, testing.BackendConfig)
        # The CUDA config runs only where CuPy sees a GPU (else skipped).
        if backend_config.use_cuda:
            assert cuda.available
            assert backend_config.device.xp is cuda.cupy

    def test_not_injected(self):
        assert not hasattr(self, 'backend_config')


@testing.inject_backend_tests(None, [{}, {'use_ideep': 'auto'}])
class TestInjectPlain:

    def test_plain(self, backend_config):
        _seen.append(('plain', backend_config.use_ideep))
        assert backend_config.device == self._backend_config.device


@testing.parameterize({'n': 1}, {'n': 2})
@testing.inject_backend_tests(None, [{}, {'use_ideep': 'always'}])
class TestStacked(unittest.TestCase):

    def test_both(self, backend_config):
        _seen.append(('stacked', self.n, backend_config.use_ideep))


def test_generated_classes():
    import sys
    module = sys.modules[__name__]
    names = sorted(n for n, v in vars(module).items()
                   if isinstance(v, type) and n.startswith('TestStacked_'))
    assert len(names) == 4
    assert TestStacked.__test__ is False
    assert {getattr(module, n).n for n in names} == {1, 2}
    names = sorted(n for n, v in vars(module).items()
                   if isinstance(v, type) and n.startswith('TestInjectUnittest'))
    assert names == ['TestInjectUnittest', 'TestInjectUnittest__numpy',
                     'TestInjectUnittest__use_cuda_true',
                     'TestInjectUnittest__use_ideep_always']


def test_z_injected_tests_ran():
    # Runs after the classes above in file order; under -k selections some
    # may not have run, so only check what must hold for those that did.
    if not _seen:
        pytest.skip('the injected tests were deselected')
    kinds = {s[0] for s in _seen}
    assert kinds == {'unittest', 'plain', 'stacked'}
    assert {s[1] for s in _seen if s[0] == 'unittest'} <= {'never', 'always'}
    assert {(s[1], s[2]) for s in _seen if s[0] == 'stacked'} <= {
        (1, 'never'), (1, 'always'), (2, 'never'), (2, 'always')}


@testing.parameterize({'k': 1}, {'k': 2})
@testing.inject_backend_tests(None, [{}, {'use_ideep': 'always'}])
class TestStackedPlainWithFixture:

    def test_fixture_and_config(self, backend_config, tmp_path):
        # pytest still provides fixtures after the backend argument.
        assert tmp_path.is_dir()
        assert isinstance(backend_config, testing.BackendConfig)
        assert self.k in (1, 2)
