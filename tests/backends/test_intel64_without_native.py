"""What ``config.use_ideep`` does when the native module is missing.

The tests under ``intel64/`` need the native module; these simulate its
absence (and where the package was imported from), so they run everywhere.
"""
import os
import shutil
import subprocess
import sys
import warnings

import numpy
import pytest

import cpuframe
from cpuframe import _native, using_config
from cpuframe import functions as F
from cpuframe.backends import intel64

_ERROR = "ModuleNotFoundError: No module named 'cpuframe._dnnl'"


@pytest.fixture
def missing_native(monkeypatch, tmp_path):
    """The native module did not load; ``layout(checkout)`` puts the package
    directory in a source checkout (True) or in site-packages (False) and
    returns the directory above it."""
    monkeypatch.setattr(intel64, '_dnnl', None)
    monkeypatch.setattr(_native, 'load', lambda: None)
    monkeypatch.setattr(_native, 'load_error', lambda: _ERROR)
    monkeypatch.setattr(intel64, '_missing_checked', False)
    monkeypatch.delenv('CPUFRAME_DISABLE_NATIVE', raising=False)

    def layout(checkout):
        root = tmp_path / ('checkout' if checkout else 'site-packages')
        (root / 'cpuframe').mkdir(parents=True)
        if checkout:
            (root / 'pyproject.toml').write_text('[project]\n')
            (root / 'csrc').mkdir()
        monkeypatch.setattr(_native, '_PACKAGE_DIR', root / 'cpuframe')
        return root

    return layout


def _run_relu(mode, times=2, small=False):
    """Warnings of type NativeBackendMissingWarning from ``times`` relu calls
    on an array large enough for 'auto' to want the route (``small``: one
    it would leave on NumPy anyway, which never warns)."""
    x = numpy.tile(numpy.array([[-1.0, 2.0]], numpy.float32),
                   (1, 1) if small else (512, 256))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        with using_config('use_ideep', mode):
            for _ in range(times):
                y = F.relu(x)
    numpy.testing.assert_array_equal(y.array, numpy.maximum(x, 0))
    return [w for w in caught
            if issubclass(w.category, intel64.NativeBackendMissingWarning)]


def test_auto_in_a_source_checkout_warns_once_with_reason_and_fix(
        missing_native):
    root = missing_native(checkout=True)
    caught = _run_relu('auto', times=3)
    assert len(caught) == 1
    text = str(caught[0].message)
    assert 'source tree at {}'.format(root) in text
    assert 'cpuframe._dnnl is not built' in text and _ERROR in text
    assert 'outside the checkout' in text and '`pip install -e .`' in text
    # it points at the caller's line, not at cpuframe's machinery
    assert caught[0].filename == __file__
    assert issubclass(intel64.NativeBackendMissingWarning, UserWarning)
    assert _run_relu('auto') == []


def test_auto_does_not_warn_where_it_would_not_route(missing_native):
    # A call 'auto' leaves on NumPy by its size rule loses nothing.
    missing_native(checkout=True)
    assert _run_relu('auto', small=True) == []
    assert len(_run_relu('auto')) == 1


def test_should_use_ideep_under_auto_warns_too(missing_native):
    missing_native(checkout=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        with using_config('use_ideep', 'auto'):
            assert intel64.should_use_ideep('>=auto') is False
    assert [w.category for w in caught] == [
        intel64.NativeBackendMissingWarning]


def test_no_warning_when_disabled_on_purpose(missing_native, monkeypatch):
    missing_native(checkout=True)
    monkeypatch.setenv('CPUFRAME_DISABLE_NATIVE', '1')
    assert _run_relu('auto') == []


def test_no_warning_for_an_installed_package(missing_native):
    missing_native(checkout=False)
    assert _run_relu('auto') == []


def test_never_is_silent_and_always_still_raises(missing_native):
    missing_native(checkout=True)
    assert _run_relu('never') == []
    with using_config('use_ideep', 'always'):
        with pytest.raises(RuntimeError, match='could not be loaded'):
            F.relu(numpy.ones((1, 2), numpy.float32))


def test_running_from_a_checkout_without_the_module_warns(tmp_path):
    checkout = tmp_path / 'checkout'
    shutil.copytree(os.path.dirname(cpuframe.__file__), checkout / 'cpuframe',
                    ignore=shutil.ignore_patterns('*.so', '__pycache__'))
    (checkout / 'pyproject.toml').write_text('[project]\nname = "cpuframe"\n')
    (checkout / 'csrc').mkdir()
    code = (
        'import sys, numpy, cpuframe\n'
        'import cpuframe.functions as F\n'
        'print(cpuframe.__file__)\n'
        'sys.stderr.write("imported\\n")\n'
        'x = numpy.ones((512, 512), numpy.float32)\n'
        'for _ in range(3):\n'
        '    F.relu(x)\n')
    env = {k: v for k, v in os.environ.items()
           if k not in ('CPUFRAME_DISABLE_NATIVE', 'CPUFRAME_USE_IDEEP',
                        'CHAINER_USE_IDEEP', 'PYTHONWARNINGS')}
    # -S skips site-packages' .pth files (an editable install's import hook
    # would win over the current directory); NumPy comes from PYTHONPATH.
    env['PYTHONPATH'] = os.path.dirname(os.path.dirname(numpy.__file__))
    out = subprocess.run([sys.executable, '-S', '-c', code], cwd=checkout,
                         env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(checkout / 'cpuframe' / '__init__.py')
    before, after = out.stderr.split('imported\n')
    assert before == ''
    assert after.count('NativeBackendMissingWarning') == 1, after
    assert 'source tree at {}'.format(checkout) in after
    assert '`pip install -e .`' in after


@pytest.mark.parametrize('checkout', [True, False])
def test_moving_to_the_device_without_the_module_says_why_and_what_to_do(
        missing_native, checkout):
    # (issue 26) from a source checkout the error said only "No module
    # named 'cpuframe._dnnl'"
    root = missing_native(checkout)
    link = cpuframe.links.Linear(2, 3)
    with pytest.raises(RuntimeError) as e:
        link.to_device('@intel64')
    msg = str(e.value)
    assert _ERROR in msg
    if checkout:
        assert 'source tree at {}'.format(root) in msg
        assert 'pip install -e .' in msg and 'outside the checkout' in msg
    else:
        assert 'source tree' not in msg
