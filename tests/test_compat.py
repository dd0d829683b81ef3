import subprocess
import sys
import textwrap
import types

import pytest

from cpuframe import compat

SCRIPT = textwrap.dedent('''
    import sys
    import numpy as np
    import chainer
    import chainer.functions as F
    import chainer.links as L
    from chainer import Chain, Variable
    from chainer.backends import cuda, intel64
    import chainerx

    class MLP(Chain):
        def __init__(self):
            super(MLP, self).__init__()
            with self.init_scope():
                self.l1 = L.Linear(None, 8)
                self.l2 = L.Linear(8, 2)

        def forward(self, x):
            return self.l2(F.relu(self.l1(x)))

    chainer.config.use_ideep = 'auto'
    np.random.seed(0)
    model = L.Classifier(MLP())
    if intel64.is_ideep_available():
        model.to_intel64()
    rng = np.random.RandomState(0)
    x = rng.normal(size=(64, 3)).astype(np.float32)
    t = (x[:, 0] > 0).astype(np.int32)
    for _ in range(200):
        model.cleargrads()
        loss = model(x, t)
        loss.backward()
        for p in model.params():
            p.data -= 0.1 * p.grad
    model.to_cpu()
    print('args', sys.argv[1:])
    print('chainerx', chainerx.is_available())
    print('cuda', cuda.get_array_module(x).__name__)
    print('ideep', isinstance(intel64.is_ideep_available(), bool))
    print('accuracy', float(model.accuracy.data) >= 0.95)
''')


def _run(tmp_path, *args):
    script = tmp_path / 'train.py'
    script.write_text(SCRIPT)
    return subprocess.run([sys.executable, '-m', 'cpuframe.compat', str(script),
                           *args], capture_output=True, text=True, timeout=120)


def test_unmodified_chainer_script_runs(tmp_path):
    out = _run(tmp_path, '--epoch', '3')
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "args ['--epoch', '3']" in lines
    assert 'chainerx False' in lines
    assert 'cuda numpy' in lines
    assert 'ideep True' in lines
    assert 'accuracy True' in lines


def test_usage_and_missing_module_flag():
    out = subprocess.run([sys.executable, '-m', 'cpuframe.compat'],
                         capture_output=True, text=True)
    assert out.returncode == 2 and 'usage' in out.stderr
    out = subprocess.run([sys.executable, '-m', 'cpuframe.compat', '-m'],
                         capture_output=True, text=True)
    assert out.returncode == 2 and '-m needs a module' in out.stderr


def test_install_in_process_and_uninstall():
    compat.install()
    try:
        import chainer
        import chainer.functions as F
        import chainerx

        import cpuframe
        assert chainer is cpuframe
        assert F is cpuframe.functions
        assert not chainerx.is_available()
        compat.install()   # idempotent
    finally:
        compat.uninstall()
    assert 'chainer' not in sys.modules


def test_renamed_module_paths_resolve():
    compat.install()
    try:
        from chainer.functions.pooling.roi_average_align_2d import (
            roi_average_align_2d,
        )
        from chainer.functions.pooling.roi_max_pooling_2d import (
            roi_max_pooling_2d,
        )

        import cpuframe.functions as F
        assert roi_max_pooling_2d is F.roi_max_pooling_2d
        assert roi_average_align_2d is F.roi_average_align_2d
    finally:
        compat.uninstall()


def test_install_refuses_real_chainer(monkeypatch):
    monkeypatch.setitem(sys.modules, 'chainer', types.ModuleType('chainer'))
    with pytest.raises(RuntimeError, match='real chainer is already imported'):
        compat.install()
