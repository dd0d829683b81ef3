"""The README's ONNX export: train_mnist.py's trained model, exported by
examples/export_onnx.py from a snapshot, agrees with cpuframe in ONNX
Runtime."""
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip('onnx')
pytest.importorskip('onnxruntime')

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / 'examples'


def test_export_trained_mnist_model(tmp_path):
    train = subprocess.run(
        [sys.executable, str(EXAMPLES / 'train_mnist.py'), '--model', 'cnn',
         '--epoch', '1', '--out', str(tmp_path / 'result'), '--noplot'],
        capture_output=True, text=True, timeout=600, cwd=str(tmp_path))
    assert train.returncode == 0, train.stdout[-2000:] + train.stderr[-2000:]
    snapshots = sorted((tmp_path / 'result').glob('snapshot_iter_*'))
    assert snapshots
    out = tmp_path / 'mnist.onnx'
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / 'export_onnx.py'), '--snapshot',
         str(snapshots[-1]), '--out', str(out)],
        capture_output=True, text=True, timeout=600, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert out.exists()
    assert 'same predictions: True' in proc.stdout, proc.stdout
