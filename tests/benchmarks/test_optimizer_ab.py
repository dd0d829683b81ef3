"""benchmarks/convnet/optimizer_ab.py runs both sides and leaves the
optimizer kernels switched on, the global configuration and sys.path as
they were."""
import importlib.util
import sys
from pathlib import Path

import cpuframe
from cpuframe.optimizers import momentum_sgd, sgd

PATH = Path(__file__).resolve().parents[2] / 'benchmarks' / 'convnet' / \
    'optimizer_ab.py'


def _module():
    spec = importlib.util.spec_from_file_location('optimizer_ab', PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_both_sides_measured_on_a_small_model(capsys):
    before = cpuframe.global_config.use_ideep
    path_before = list(sys.path)
    steps, updates = _module().main([
        '--model', 'alexnet', '--insize', '63', '--batch', '2',
        '--device', '@numpy', '--optimizer', 'SGD', '--rounds', '1'])
    for side in ('native', 'numpy'):
        assert len(steps[side]) == 2 and len(updates[side]) == 2
        assert all(0 < u <= s for u, s in zip(updates[side], steps[side]))
    out = capsys.readouterr().out
    assert 'alexnet 63x63 batch 2 on @numpy, SGD' in out
    assert 'native' in out and 'numpy' in out
    assert momentum_sgd._kernel == [] or momentum_sgd._kernel[0] is not None
    assert sgd._kernel == [] or sgd._kernel[0] is not None
    assert cpuframe.global_config.use_ideep == before  # (restored)
    # (sys.path untouched: a worker process spawned later must not import
    # the checkout's cpuframe, which may lack the native module)
    assert sys.path == path_before
