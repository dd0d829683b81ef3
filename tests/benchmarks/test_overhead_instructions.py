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


def test_where_groups_callgrind_costs_by_library():
    text = '\n'.join([
        '-' * 80,
        '2,781,554 (100.0%)  PROGRAM TOTALS',
        '-' * 80,
        "  447,997 (27.9%)  /b/Python/ceval.c:_PyEval_EvalFrameDefault'2 "
        '[/x/lib/libpython3.11.so.1.0]',
        '   10,213 ( 0.6%)  /b/Python/ceval.c:_PyEval_EvalFrameDefault '
        '[/x/lib/libpython3.11.so.1.0]',
        '  133,476 ( 8.3%)  ???:sgemm_kernel_HASWELL '
        '[/x/numpy.libs/libscipy_openblas64_-ff651d7f.so]',
        '   14,567 ( 0.9%)  ???:ufunc_generic_fastcall '
        '[/x/numpy/_core/_multiarray_umath.cpython-311-x86_64-linux-gnu.so]',
        '       12 ( 0.0%)  ???:0x00000000000dcb20'])
    costs = ins.parse_annotate(text)
    lib = '/x/lib/libpython3.11.so.1.0'
    # recursion levels ('2) summed into one function; no totals line
    assert costs[('ceval.c:_PyEval_EvalFrameDefault', lib)] == 458210
    assert sum(costs.values()) == 458210 + 133476 + 14567 + 12
    groups = {}
    for (_, obj), n in costs.items():
        groups[ins.group_of(obj)] = groups.get(ins.group_of(obj), 0) + n
    assert groups == {'Python interpreter': 458210, 'BLAS': 133476,
                      'NumPy': 14567, 'other': 12}


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
    # '@auto': NumPy arrays under use_ideep='auto' (the script says which
    # mode and array type a row ran with when asked)
    auto = subprocess.run([sys.executable, str(script), 'add_fwd', '@auto',
                           '3'], env=dict(env, INSTRUCTIONS_SAY='1'),
                          capture_output=True, text=True, timeout=300)
    assert auto.returncode == 0, auto.stderr
    assert auto.stdout.split() == ['auto', 'ndarray'], auto.stdout
    bad = subprocess.run([sys.executable, str(script), 'no_such_row',
                          '@numpy', '1'], env=env, capture_output=True,
                         text=True, timeout=300)
    assert bad.returncode != 0 and 'no_such_row' in bad.stderr
    # '@static': the decorated model rows, replayed by the time they are
    # counted (the warm-up calls record them)
    static = subprocess.run([sys.executable, str(script), 'dqn_mlp',
                             '@static', '2'],
                            env=dict(env, INSTRUCTIONS_SAY='1'),
                            capture_output=True, text=True, timeout=300)
    assert static.returncode == 0, static.stderr
    assert static.stdout.split() == ['auto', 'ndarray', 'replayed'], \
        static.stdout
    # (its rows are the model rows: an op row is not decorated)
    op = subprocess.run([sys.executable, str(script), 'relu_4', '@static',
                         '1'], env=env, capture_output=True, text=True,
                        timeout=300)
    assert op.returncode != 0 and 'relu_4' in op.stderr


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
