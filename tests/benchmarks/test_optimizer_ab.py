"""benchmarks/convnet/optimizer_ab.py runs both sides and leaves the
optimizer kernels switched on."""
import importlib.util
from pathlib import Path

from cpuframe.optimizers import momentum_sgd, sgd

PATH = Path(__file__).resolve().parents[2] / 'benchmarks' / 'convnet' / \
    'optimizer_ab.py'


def _module():
    spec = importlib.util.spec_from_file_location('optimizer_ab', PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_both_sides_measured_on_a_small_model(capsys):
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
