"""Chainer-style example scripts (tests/compat_scripts: MNIST with the
Trainer and its extensions, the PTB language model with truncated BPTT, a
DCGAN with two optimizers and a custom extension, word2vec with negative
sampling / hierarchical softmax) run
unmodified through ``python -m cpuframe.compat`` on both backends, on small
fake copies of the datasets in Chainer's cache layout (no network)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy
import pytest

from cpuframe.backends import intel64
from cpuframe.datasets import get_digits

SCRIPTS = Path(__file__).resolve().parent / 'compat_scripts'
DEVICES = ['-1', pytest.param('@intel64', marks=pytest.mark.skipif(
    not intel64.is_ideep_available(), reason='native module unavailable'))]


@pytest.fixture(scope='module')
def dataset_root(tmp_path_factory):
    root = tmp_path_factory.mktemp('dataset_root')
    # MNIST: the bundled 8x8 digits scaled up to 28x28 uint8 images
    mnist = root / 'pfnet' / 'chainer' / 'mnist'
    mnist.mkdir(parents=True)
    for name, part in zip(('train', 'test'), get_digits()):
        x = numpy.stack([example[0] for example in part]).reshape(-1, 8, 8)
        y = numpy.array([example[1] for example in part], numpy.uint8)
        images = numpy.zeros((len(x), 28, 28), numpy.float32)
        images[:, 2:26, 2:26] = numpy.kron(x, numpy.ones((3, 3)))
        images = (images / images.max() * 255).astype(numpy.uint8)
        numpy.savez_compressed(mnist / (name + '.npz'),
                               x=images.reshape(len(x), 784), y=y)
    # PTB: a cycle of 12 words with 10 % of them replaced at random
    ptb = root / 'pfnet' / 'chainer' / 'ptb'
    ptb.mkdir(parents=True)
    rng = numpy.random.RandomState(0)
    for name, n in (('train', 3000), ('valid', 60), ('test', 60)):
        words = numpy.tile(numpy.arange(12), n // 12 + 1)[:n]
        noise = rng.rand(n) < 0.1
        words[noise] = rng.randint(0, 12, noise.sum())
        numpy.savez_compressed(ptb / (name + '.npz'),
                               x=words.astype(numpy.int32))
    return root


def _run(script, args, root, cwd, seed=None):
    """The script through ``python -m cpuframe.compat``; with ``seed``,
    NumPy's global generator is seeded first (the script, unmodified,
    draws its initial weights and dropout masks from it)."""
    env = dict(os.environ, CHAINER_DATASET_ROOT=str(root))
    env.pop('CPUFRAME_DATASET_ROOT', None)
    command = [sys.executable, '-m', 'cpuframe.compat', str(SCRIPTS / script),
               *args]
    if seed is not None:
        command = [sys.executable, '-c',
                   'import sys, numpy; numpy.random.seed({}); '
                   'from cpuframe import compat; '
                   'sys.exit(compat.main(sys.argv[1:]))'.format(seed),
                   *command[3:]]
    out = subprocess.run(command, capture_output=True, text=True,
                         timeout=300, env=env, cwd=cwd)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-4000:]
    return out


@pytest.mark.parametrize('device', DEVICES)
def test_mnist_example_trains_and_resumes(device, dataset_root, tmp_path):
    # (seeded, as every accuracy check here: unseeded, 3 epochs on the
    # digits end at 0.89-0.94, below the 0.9 asked once in CI; seed 5 ends
    # at 0.942 on both devices)
    args = ['-u', '100', '-d', device, '--noplot', '-o', 'result']
    out = _run('train_mnist.py', ['-e', '3'] + args, dataset_root, tmp_path,
               seed=5)
    assert 'Device: {}'.format(device if device != '-1' else '@numpy') \
        in out.stdout
    log = json.loads((tmp_path / 'result' / 'log').read_text())
    assert [entry['epoch'] for entry in log] == [0, 1, 2, 3]
    assert log[-1]['validation/main/accuracy'] >= 0.9
    assert (tmp_path / 'result' / 'cg.dot').exists()
    snapshots = sorted(p.name for p in (tmp_path / 'result').iterdir()
                       if p.name.startswith('snapshot_iter_'))
    assert len(snapshots) == 1   # n_retains=1

    # --autoload picks the snapshot up: training goes on from epoch 3
    out = _run('train_mnist.py', ['-e', '4', '--autoload'] + args,
               dataset_root, tmp_path, seed=5)
    log = json.loads((tmp_path / 'result' / 'log').read_text())
    assert [entry['epoch'] for entry in log] == [0, 1, 2, 3, 4]
    assert log[-1]['validation/main/accuracy'] >= 0.9


@pytest.mark.parametrize('device', DEVICES)
def test_ptb_example_learns_the_sequence(device, dataset_root, tmp_path):
    # (seeded: an unlucky initialization was seen to end at perplexity 4.8
    # once in CI)
    out = _run('train_ptb.py', ['-e', '8', '-u', '32', '-b', '10', '-l', '10',
                                '-d', device], dataset_root, tmp_path, seed=3)
    lines = out.stdout.splitlines()
    assert '#vocab = 12' in lines
    perplexity = float(next(line for line in lines
                            if line.startswith('test perplexity: ')).split()[-1])
    # 12 words: a model that learned nothing scores about 12; the sequence
    # is 90 % predictable.
    assert perplexity < 3.0, out.stdout[-2000:]
    result = tmp_path / 'result'
    assert (result / 'snapshot_iter_240').exists()
    assert (result / 'model_iter_240').exists()
    with numpy.load(tmp_path / 'model.npz') as saved:
        assert saved['predictor/l1/upward/W'].shape == (128, 32)


@pytest.mark.parametrize('device', DEVICES)
def test_dcgan_example_trains_two_models(device, dataset_root, tmp_path):
    args = ['-b', '32', '-d', device, '--snapshot_interval', '45',
            '--display_interval', '15']
    _run('train_dcgan.py', ['-e', '1'] + args, dataset_root, tmp_path)
    result = tmp_path / 'result'
    log = json.loads((result / 'log').read_text())
    assert [entry['iteration'] for entry in log] == [15, 30, 45]
    dis_loss = [entry['dis/loss'] for entry in log]
    assert all(numpy.isfinite(dis_loss)) and dis_loss[-1] < dis_loss[0]
    image = numpy.load(result / 'preview' / 'image00000045.npy')
    assert image.shape == (4 * 28, 4 * 28) and image.dtype == numpy.uint8
    for name in ('snapshot_iter_45.npz', 'gen_iter_45.npz',
                 'dis_iter_45.npz'):
        assert (result / name).exists()
    with numpy.load(result / 'gen_iter_45.npz') as gen:
        assert gen['dc1/W'].shape == (32, 16, 4, 4)
        assert 'bn0/avg_mean' in gen

    # resume from the trainer snapshot: training goes on from iteration 45
    _run('train_dcgan.py', ['-e', '2', '--resume',
                            str(result / 'snapshot_iter_45.npz')] + args,
         dataset_root, tmp_path)
    log = json.loads((result / 'log').read_text())
    assert [entry['iteration'] for entry in log][-1] == 90


@pytest.mark.parametrize('model, out_type', [('skipgram', 'ns'),
                                             ('cbow', 'hsm'),
                                             ('skipgram', 'original')])
def test_word2vec_example_loss_falls(model, out_type, dataset_root, tmp_path):
    out = _run('train_word2vec.py', ['-e', '4', '-u', '16', '-w', '2',
                                     '-b', '100', '-m', model, '-o', out_type,
                                     '-d', '-1', '--out', 'result'],
               dataset_root, tmp_path)
    assert 'n_vocab: 12' in out.stdout.splitlines()
    log = json.loads((tmp_path / 'result' / 'log').read_text())
    assert [entry['epoch'] for entry in log] == [1, 2, 3, 4]
    for key in ('main/loss', 'validation/main/loss'):
        losses = [entry[key] for entry in log]
        assert all(numpy.isfinite(losses))
        assert losses[-1] < losses[0], (key, losses)
    lines = (tmp_path / 'result' / 'word2vec.model').read_text().splitlines()
    assert lines[0] == '12 16' and len(lines) == 13
    assert len(lines[1].split()) == 17


@pytest.mark.parametrize('device', DEVICES)
@pytest.mark.parametrize('model', ['MLP', 'MLPSideEffect'])
def test_static_graph_example_learns(device, model, dataset_root, tmp_path):
    # Chainer's static_graph MNIST example: the decorated MLP is replayed
    # from its third call per signature, trains to Chainer's accuracy, and
    # its @static_code runs on every call (training and evaluation).
    # (seeded: unseeded runs end at 0.89-0.94, one at 0.891 in CI; seed 5
    # ends at 0.942 for both models on both devices)
    out = _run('train_mnist_static_graph.py',
               ['-e', '3', '-b', '100', '-u', '100', '-d', device, '-m', model,
                '-o', 'result'], dataset_root, tmp_path, seed=5)
    log = json.loads((tmp_path / 'result' / 'log').read_text())
    assert [entry['epoch'] for entry in log] == [1, 2, 3]
    assert log[-1]['validation/main/accuracy'] >= 0.9
    lines = out.stdout.splitlines()
    assert any('replayed' in line for line in lines
               if line.startswith('schedules:')), out.stdout[-2000:]
    if model == 'MLPSideEffect':
        iterations = int(next(line for line in lines
                              if line.startswith('iterations:')).split()[-1])
        n_test = len(get_digits()[1])
        calls = iterations + 3 * -(-n_test // 100)
        assert 'side effect counter: {}'.format(calls) in lines
