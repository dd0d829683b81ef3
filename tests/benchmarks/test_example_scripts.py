"""The Chainer-style example scripts of benchmarks/examples: each runs
unmodified through ``python -m cpuframe.compat`` on both devices and learns
something; the harness runs them and prints its table."""
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from cpuframe.backends import intel64

EXAMPLES = Path(__file__).resolve().parents[2] / 'benchmarks' / 'examples'

# script -> (short arguments, what its JSON line must show)
CASES = {
    'sentiment': (['--iterations', '3', '--batchsize', '4'],
                  lambda out: out['nodes'] == 3 * 4 * 23),
    'ptb_rnnlm': (['--iterations', '2', '--bproplen', '5', '--unit', '16',
                   '--vocab', '50'],
                  lambda out: 0 < out['loss'] < 2 * math.log(50)),
    'seq2seq': (['--iterations', '2', '--batchsize', '8', '--unit', '16'],
                lambda out: 0 < out['loss'] < 20 * 2 * math.log(800)),
    'dqn': (['--steps', '260', '--batch-size', '16'],
            lambda out: 0 <= out['loss'] < 10),
    'mnist_trainer': (['--iterations', '100'],
                      lambda out: out['accuracy'] >= 0.9),
    'word2vec': (['--iterations', '3', '--batchsize', '50', '--unit', '16'],
                 lambda out: 0 < out['loss'] < 60),
    'vae': (['--iterations', '30', '--unit', '64'],
            lambda out: 0 < out['loss'] < 784 * math.log(2)),
    'dcgan': (['--iterations', '2', '--batchsize', '4', '--ch', '16'],
              lambda out: out['loss_dis'] > 0 and out['loss_gen'] > 0),
    'cifar_vgg': (['--iterations', '12', '--batchsize', '16', '--width', '4'],
                  lambda out: out['loss'] < math.log(10) * 1.5),
}


def _run(args, tmp_path):
    # (the cpuframe this test imports: cwd is a temporary folder)
    proc = subprocess.run(args, cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


@pytest.mark.parametrize('device', ['-1', '@intel64'])
@pytest.mark.parametrize('script', sorted(CASES))
def test_example_script_runs_unmodified(script, device, tmp_path):
    if device == '@intel64' and not intel64.is_ideep_available():
        pytest.skip('the native module is not built')
    args, check = CASES[script]
    out = json.loads(_run(
        [sys.executable, '-m', 'cpuframe.compat',
         str(EXAMPLES / (script + '.py')), '--device', device] + args,
        tmp_path).strip().splitlines()[-1])
    assert out['seconds'] > 0
    assert check(out), out


def test_harness_prints_a_row_per_script(tmp_path):
    stdout = _run([sys.executable, str(EXAMPLES / 'run.py'),
                   '--scripts', 'sentiment', '--paths', 'numpy',
                   '--rounds', '1', '--settle', '0',
                   '--json', str(tmp_path / 'out.json')], tmp_path)
    rows = [line for line in stdout.splitlines() if line.startswith('| ')]
    assert rows[0].startswith('| script (s) | numpy')
    assert rows[1].startswith('| sentiment | ')
    saved = json.loads((tmp_path / 'out.json').read_text())
    assert len(saved['samples']['sentiment']['numpy']) == 1
