"""The README's main job: examples/train_mnist.py reaches its accuracy."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

import cpuframe
from cpuframe.backends import intel64

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / 'examples' / 'train_mnist.py'


def _run(tmp_path, *args):
    env = dict(os.environ)
    # The example imports the same cpuframe these tests import.
    package_root = str(pathlib.Path(cpuframe.__file__).resolve().parents[1])
    env['PYTHONPATH'] = os.pathsep.join(
        p for p in (package_root, env.get('PYTHONPATH')) if p)
    out = tmp_path / 'result'
    proc = subprocess.run(
        [sys.executable, str(EXAMPLE), '--out', str(out), '--noplot', *args],
        capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    with open(out / 'log') as f:
        return json.load(f), out, proc.stdout


@pytest.mark.slow
@pytest.mark.parametrize('device', ['@numpy', '@intel64'])
def test_cnn_on_embedded_digits_reaches_95_percent(tmp_path, device):
    if device == '@intel64' and not intel64.is_ideep_available():
        pytest.skip('native module unavailable: {}'.format(
            intel64.unavailable_reason()))
    log, out, stdout = _run(tmp_path, '--epoch', '5', '--device', device)
    assert log[-1]['epoch'] == 5
    assert log[-1]['validation/main/accuracy'] >= 0.95, log[-1]
    assert (out / 'snapshot_iter_{}'.format(log[-1]['iteration'])).is_file()
    assert 'validation/main/accuracy' in stdout


@pytest.mark.slow
def test_cnn_in_mixed_bf16_reaches_95_percent(tmp_path):
    # The README's main job as written there: --dtype mixed_bf16 (on a CPU
    # without bf16 primitives it computes in float32 and says so once).
    if not intel64.is_ideep_available():
        pytest.skip('native module unavailable: {}'.format(
            intel64.unavailable_reason()))
    log, out, stdout = _run(tmp_path, '--epoch', '5', '--device', '@intel64',
                            '--dtype', 'mixed_bf16')
    assert 'dtype: mixed_bf16' in stdout
    assert log[-1]['validation/main/accuracy'] >= 0.95, log[-1]


@pytest.mark.slow
def test_resume_from_snapshot(tmp_path):
    log, out, _ = _run(tmp_path, '--epoch', '1', '--model', 'mlp')
    snapshot = out / 'snapshot_iter_{}'.format(log[-1]['iteration'])
    log2, _, _ = _run(tmp_path, '--epoch', '2', '--model', 'mlp',
                      '--resume', str(snapshot))
    assert [e['epoch'] for e in log2] == [1, 2]
    assert log2[0] == log[0]
