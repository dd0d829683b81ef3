"""benchmarks/overhead/core_ab.py times both cores and leaves the native
one switched on, the configuration and sys.path as they were."""
import importlib.util
import sys
from pathlib import Path

import pytest

import cpuframe
from cpuframe import function_node

HERE = Path(__file__).resolve().parents[2] / 'benchmarks' / 'overhead'


@pytest.mark.skipif(function_node._native_apply is None,
                    reason='cpuframe._core is not built here')
def test_both_cores_timed_and_everything_restored(capsys):
    path_before = list(sys.path)
    local_before = dict(cpuframe.config.__dict__)
    spec = importlib.util.spec_from_file_location(
        'core_ab', HERE / 'core_ab.py')
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.path.insert(0, str(HERE))    # (rows.py, as the script finds it)
    try:
        results = module.main(['--rows', 'add_fwd,relu_fwdbwd',
                               '--blocks', '2', '--block-ms', '1'])
    finally:
        sys.path.remove(str(HERE))
    assert set(results) == {'add_fwd', 'relu_fwdbwd'}
    for t in results.values():
        assert len(t[True]) == len(t[False]) == 2
        assert all(v > 0 for v in t[True] + t[False])
    out = capsys.readouterr().out
    assert 'add_fwd' in out and 'native / python' in out
    assert function_node.native_core() is True
    assert dict(cpuframe.config.__dict__) == local_before
    assert sys.path == path_before
