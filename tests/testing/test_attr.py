import os
import subprocess
import sys
import textwrap

import pytest

from cpuframe import testing
from cpuframe.backends import cuda, intel64

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def _marks(obj):
    return {m.name: m for m in getattr(obj, 'pytestmark', [])}


def test_marks_are_applied():
    @testing.attr.gpu
    def a():
        pass

    @testing.attr.multi_gpu(2)
    def b():
        pass

    @testing.attr.slow
    def c():
        pass

    @testing.attr.slow()
    def d():
        pass

    @testing.attr.cudnn
    def e():
        pass

    @testing.attr.ideep
    def f():
        pass

    @testing.attr.chainerx
    def g():
        pass

    assert set(_marks(a)) == {'gpu', 'skipif'}
    assert set(_marks(b)) == {'gpu', 'skipif'}
    assert set(_marks(c)) == {'slow'} == set(_marks(d))
    assert set(_marks(e)) == {'cudnn', 'skipif'}
    assert set(_marks(f)) == {'ideep', 'skipif'}
    assert set(_marks(g)) == {'chainerx', 'skip'}
    # Skipped exactly when the hardware is missing.
    assert _marks(a)['skipif'].args[0] is (not cuda.available)
    assert _marks(f)['skipif'].args[0] is (not intel64.is_ideep_available())


def test_gpu_limit(monkeypatch):
    monkeypatch.setenv('CHAINER_TEST_GPU_LIMIT', '1')
    assert testing.attr.gpu_skip_reason(2) == \
        '2 GPU(s) required; CHAINER_TEST_GPU_LIMIT=1'
    monkeypatch.setenv('CHAINER_TEST_GPU_LIMIT', '0')
    assert 'CHAINER_TEST_GPU_LIMIT' in testing.attr.gpu_skip_reason(1)


def test_multi_gpu_rejects_bad_counts():
    with pytest.raises(ValueError):
        testing.attr.multi_gpu(0)


_SCRIPT = '''
import unittest
from cpuframe import testing


@testing.attr.gpu
def test_gpu():
    pass


@testing.attr.multi_gpu(64)
def test_many_gpus():
    pass


@testing.attr.cudnn
def test_cudnn():
    pass


@testing.attr.chainerx
def test_chainerx():
    pass


@testing.attr.ideep
def test_ideep():
    pass


@testing.attr.slow
def test_slow():
    pass


@testing.attr.gpu
class TestGpuClass(unittest.TestCase):
    def test_a(self):
        pass


@testing.inject_backend_tests(None, [
    {}, {'use_ideep': 'always'}, {'use_cuda': True},
    {'use_chainerx': True, 'chainerx_device': 'native:0'}])
class TestInjected(unittest.TestCase):
    def test_x(self, backend_config):
        pass
'''


def _run_pytest(tmp_path, *args):
    (tmp_path / 'test_marked.py').write_text(textwrap.dedent(_SCRIPT))
    env = dict(os.environ)     # the cpuframe this process imported
    env.pop('CHAINER_TEST_GPU_LIMIT', None)
    out = subprocess.run(
        [sys.executable, '-m', 'pytest', '-q', '-rs', '-p', 'no:cacheprovider',
         '-W', 'error::pytest.PytestUnknownMarkWarning',
         '-c', os.path.join(ROOT, 'pyproject.toml'), '--rootdir', ROOT,
         str(tmp_path / 'test_marked.py')] + list(args),
        capture_output=True, text=True, env=env, cwd=str(tmp_path),
        timeout=300)
    return out.returncode, out.stdout + out.stderr


@pytest.mark.skipif(cuda.available, reason='checks the no-GPU behaviour')
def test_tests_needing_missing_hardware_are_skipped(tmp_path):
    rc, out = _run_pytest(tmp_path)
    assert rc == 0, out
    ideep = intel64.is_ideep_available()
    # Run: test_slow, the numpy injected config (+ ideep ones if available).
    passed = 2 + (2 if ideep else 0)
    skipped = 11 - passed
    assert '{} passed, {} skipped'.format(passed, skipped) in out, out
    assert 'CuPy is not available' in out
    assert 'ChainerX is not supported' in out


@pytest.mark.skipif(cuda.available, reason='checks the no-GPU behaviour')
def test_marks_select_and_deselect(tmp_path):
    rc, out = _run_pytest(tmp_path, '-m', 'not slow and not gpu')
    assert rc == 0, out
    # deselected: test_slow, test_gpu, test_many_gpus, TestGpuClass, the cuda
    # injected config
    assert '5 deselected' in out, out
