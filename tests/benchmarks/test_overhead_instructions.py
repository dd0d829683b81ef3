"""benchmarks/overhead/instructions.py: the row kinds, the child script
that runs a row, and (where Valgrind is installed) a count."""
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PATH = Path(__file__).resolve().parents[2] / 'benchmarks' / 'overhead' / \
    'instructions.py'


def _load():
    spec = importlib.util.spec_from_file_location('overhead_instructions',
                                                  PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ins = _load()


def test_row_kinds_set_the_calls_per_run():
    assert ins._kind('add_fwd') == ins._kind('relu_4') == 'op'
    assert ins._kind('linear_fwdbwd') == 'fwdbwd'
    assert ins._kind('dqn_mlp') == ins._kind('elementwise_10') == 'model'
    for lo, hi in ins._CALLS.values():
        assert 0 < lo < hi


def test_the_child_script_runs_a_row(tmp_path):
    # the script Valgrind runs, run here without it: the row's calls happen
    # with the cpuframe this test imports (no baseline)
    script = tmp_path / 'child.py'
    script.write_text(ins._CHILD.format(here=str(ins.HERE), root=''))
    env = dict(os.environ)
    env.pop('PYTHONPATH', None)
    out = subprocess.run([sys.executable, str(script), 'add_fwd', '@numpy',
                          '3'], env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    bad = subprocess.run([sys.executable, str(script), 'no_such_row',
                          '@numpy', '1'], env=env, capture_output=True,
                         text=True, timeout=300)
    assert bad.returncode != 0 and 'no_such_row' in bad.stderr


@pytest.mark.slow   # (two interpreters under Valgrind: 30-50 s)
@pytest.mark.skipif(shutil.which('valgrind') is None,
                    reason='valgrind is not installed')
def test_an_op_costs_a_plausible_count(tmp_path, monkeypatch):
    script = tmp_path / 'child.py'
    script.write_text(ins._CHILD.format(here=str(ins.HERE), root=''))
    monkeypatch.setitem(ins._CALLS, 'op', (1, 11))
    n = ins.per_call(str(script), 'relu_4', '@numpy')
    # one F.relu on 4 elements: the bookkeeping of an op, tens of thousands
    # of instructions (not hundreds, not millions)
    assert 5e3 < n < 1e6
