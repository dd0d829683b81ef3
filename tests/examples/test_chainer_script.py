"""The README's compat example: an unmodified Chainer script
(examples/chainer_script.py, ``import chainer`` only) trains on cpuframe
through ``python -m cpuframe.compat``; and train_mnist.py's bad devices."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

import cpuframe
from cpuframe.backends import intel64

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / 'examples'


def _env():
    env = dict(os.environ)
    package_root = str(pathlib.Path(cpuframe.__file__).resolve().parents[1])
    env['PYTHONPATH'] = os.pathsep.join(
        p for p in (package_root, env.get('PYTHONPATH')) if p)
    return env


@pytest.mark.parametrize('device', ['-1', '@intel64'])
def test_chainer_script_trains_through_compat(tmp_path, device):
    if device == '@intel64' and not intel64.is_ideep_available():
        pytest.skip('native module unavailable')
    proc = subprocess.run(
        [sys.executable, '-m', 'cpuframe.compat',
         str(EXAMPLES / 'chainer_script.py'), '--epoch', '3',
         '--device', device, '--out', str(tmp_path / 'result')],
        capture_output=True, text=True, timeout=600, env=_env(),
        cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    with open(tmp_path / 'result' / 'log') as f:
        log = json.load(f)
    assert log[-1]['epoch'] == 3
    assert log[-1]['validation/main/accuracy'] >= 0.95, log[-1]
    assert 'validation/main/accuracy' in proc.stdout  # PrintReport's header


@pytest.mark.parametrize('device, says', [
    ('@intel', "expected a device specifier"),
    ('banana', "expected a device specifier"),
])
def test_train_mnist_bad_device_is_a_one_line_usage_error(device, says):
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / 'train_mnist.py'), '--device',
         device], capture_output=True, text=True, timeout=300, env=_env())
    assert proc.returncode == 2
    assert 'Traceback' not in proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith('train_mnist.py: error: --device ' + device)
    assert says in last and "'@intel64'" in last
