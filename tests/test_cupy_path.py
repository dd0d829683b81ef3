"""The CUDA device through CuPy: results agree with the NumPy path.

Every test here needs CuPy and a GPU (``pytest -m gpu``); without them they
are skipped. The NumPy path is the reference: each op's forward and backward
on '@cupy:0' is compared with it, gradients are checked numerically on the
GPU, and a model trained on the GPU reaches an accuracy and saves/loads
to the CPU.
"""
import io
import os
import tempfile

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
import cpuframe.links as L
from cpuframe import Variable, gradient_check, serializers
from cpuframe.backends import cuda

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not cuda.available, reason='needs CuPy and a GPU'),
]

GPU = '@cupy:0'


def _rng(seed=0):
    return numpy.random.RandomState(seed)


def _to_host(a):
    return cuda.to_cpu(a)


_OPS = {
    'relu': (lambda x: F.relu(x), [(3, 4)]),
    'sigmoid': (lambda x: F.sigmoid(x), [(3, 4)]),
    'tanh': (lambda x: F.tanh(x), [(3, 4)]),
    'exp_log': (lambda x: F.log(F.exp(x) + 1.0), [(5,)]),
    'arith': (lambda a, b: (a * b + a / (b * b + 1.0) - b) ** 2, [(2, 3), (2, 3)]),
    'linear': (lambda x, w, b: F.linear(x, w, b), [(4, 5), (3, 5), (3,)]),
    'matmul': (lambda a, b: F.matmul(a, b), [(3, 4), (4, 2)]),
    'sum_mean': (lambda x: F.sum(x, axis=1) + F.mean(x, axis=1), [(3, 4)]),
    'reshape_transpose': (lambda x: F.transpose(F.reshape(x, (4, 3))),
                          [(3, 4)]),
    'getitem': (lambda x: x[1:, ::2], [(3, 4)]),
    'concat': (lambda a, b: F.concat((a, b), axis=1), [(2, 3), (2, 2)]),
    'softmax': (lambda x: F.softmax(x), [(3, 5)]),
    'log_softmax': (lambda x: F.log_softmax(x), [(3, 5)]),
    'conv2d': (lambda x, w, b: F.convolution_2d(x, w, b, stride=1, pad=1),
               [(2, 3, 5, 5), (4, 3, 3, 3), (4,)]),
    'deconv2d': (lambda x, w: F.deconvolution_2d(x, w, stride=2),
                 [(1, 2, 3, 3), (2, 3, 2, 2)]),
    'max_pool': (lambda x: F.max_pooling_2d(x, 2), [(2, 2, 4, 4)]),
    'avg_pool': (lambda x: F.average_pooling_2d(x, 2), [(2, 2, 4, 4)]),
    'batch_norm': (lambda x, g, b: F.batch_normalization(x, g, b),
                   [(6, 3), (3,), (3,)]),
    'lstm': (lambda c, x: F.concat(F.lstm(c, x), axis=1),
             [(2, 3), (2, 12)]),
    'broadcast': (lambda a, b: a + F.broadcast_to(b, (3, 4)), [(3, 4), (4,)]),
}


def _inputs(shapes, dtype, seed=0):
    rng = _rng(seed)
    return [rng.uniform(-1, 1, s).astype(dtype) for s in shapes]


def _run(f, arrays, gy_seed=1):
    xs = [Variable(a) for a in arrays]
    y = f(*xs)
    gy = _rng(gy_seed).uniform(-1, 1, y.shape).astype(y.dtype)
    if cuda.get_array_module(y.array) is not numpy:
        gy = cuda.to_gpu(gy)
    y.grad = gy
    y.backward()
    return _to_host(y.array), [_to_host(x.grad) for x in xs]


@pytest.mark.parametrize('name', sorted(_OPS))
@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
def test_forward_and_backward_agree_with_numpy(name, dtype):
    f, shapes = _OPS[name]
    host = _inputs(shapes, dtype)
    y_cpu, g_cpu = _run(f, host)
    y_gpu, g_gpu = _run(f, [cuda.to_gpu(a) for a in host])
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == numpy.float32 else \
        dict(rtol=1e-10, atol=1e-10)
    assert y_gpu.dtype == y_cpu.dtype
    numpy.testing.assert_allclose(y_gpu, y_cpu, **tol)
    for a, b in zip(g_gpu, g_cpu):
        numpy.testing.assert_allclose(a, b, **tol)


@pytest.mark.parametrize('name', ['arith', 'linear', 'conv2d', 'softmax',
                                  'batch_norm', 'lstm', 'max_pool'])
def test_gradients_are_checked_numerically_on_the_gpu(name):
    f, shapes = _OPS[name]
    xs = [cuda.to_gpu(a) for a in _inputs(shapes, numpy.float64, seed=3)]
    y = f(*[Variable(x) for x in xs])
    gy = cuda.to_gpu(_rng(4).uniform(-1, 1, y.shape))
    gradient_check.check_backward(f, tuple(xs), gy, eps=1e-6, atol=1e-7,
                                  rtol=1e-6)


def test_nan_and_inf_pass_through_as_on_numpy():
    a = numpy.array([numpy.nan, numpy.inf, -numpy.inf, 1e38, -2.0],
                    numpy.float32)
    for f in (F.relu, F.sigmoid, F.tanh, F.exp):
        y_cpu = f(a).array
        y_gpu = _to_host(f(cuda.to_gpu(a)).array)
        numpy.testing.assert_array_equal(numpy.isnan(y_gpu),
                                         numpy.isnan(y_cpu))
        finite = numpy.isfinite(y_cpu)
        numpy.testing.assert_allclose(y_gpu[finite], y_cpu[finite],
                                      rtol=1e-6)
        numpy.testing.assert_array_equal(y_gpu[~finite & ~numpy.isnan(y_cpu)],
                                         y_cpu[~finite & ~numpy.isnan(y_cpu)])


def test_device_moves_of_variables_and_links():
    x = Variable(numpy.arange(6, dtype=numpy.float32).reshape(2, 3))
    x.to_device(GPU)
    assert cuda.get_array_module(x.array) is cuda.cupy
    assert str(x.device) == GPU
    model = L.Classifier(L.Linear(3, 2))
    model.to_device(GPU)
    assert cuda.get_array_module(model.predictor.W.array) is cuda.cupy
    model.to_cpu()
    assert isinstance(model.predictor.W.array, numpy.ndarray)
    model.to_gpu(0)
    assert cuda.get_array_module(model.predictor.b.array) is cuda.cupy


class _MLP(cpuframe.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(2, 32)
            self.bn = L.BatchNormalization(32)
            self.l2 = L.Linear(32, 2)

    def forward(self, x):
        return self.l2(F.relu(self.bn(self.l1(x))))


def _two_moons(n, seed):
    rng = _rng(seed)
    t = rng.randint(0, 2, n).astype(numpy.int32)
    angle = rng.uniform(0, numpy.pi, n)
    x = numpy.stack([numpy.cos(angle) + t, numpy.sin(angle) * (1 - 2 * t)
                     + 0.3 * t], axis=1)
    x += rng.normal(0, 0.1, x.shape)
    return x.astype(numpy.float32), t


@pytest.mark.parametrize('opt', ['Adam', 'MomentumSGD'])
def test_training_on_the_gpu_reaches_an_accuracy_and_matches_numpy(opt):
    x, t = _two_moons(512, 0)
    results = {}
    for device in ('@numpy', GPU):
        numpy.random.seed(0)
        model = L.Classifier(_MLP())
        model.to_device(device)
        optimizer = getattr(cpuframe.optimizers, opt)()
        optimizer.setup(model)
        xd = model.device.send(x)
        td = model.device.send(t)
        losses = []
        for epoch in range(60):
            for i in range(0, 512, 64):
                optimizer.update(model, xd[i:i + 64], td[i:i + 64])
                losses.append(float(model.loss.array))
        with cpuframe.using_config('train', False):
            acc = float(F.accuracy(model.predictor(xd), td).array)
        results[device] = (losses, acc, model)
    losses_cpu, acc_cpu, model_cpu = results['@numpy']
    losses_gpu, acc_gpu, model_gpu = results[GPU]
    assert acc_gpu >= 0.95, acc_gpu
    # The same start and the same data: the first steps agree closely.
    numpy.testing.assert_allclose(losses_gpu[:5], losses_cpu[:5], rtol=1e-4)
    # Saved on the GPU, loaded on the CPU: the same predictions.
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, 'model.npz')
        serializers.save_npz(path, model_gpu)
        loaded = L.Classifier(_MLP())
        serializers.load_npz(path, loaded)
    numpy.testing.assert_allclose(
        loaded.predictor.bn.avg_mean, _to_host(model_gpu.predictor.bn.avg_mean),
        rtol=0)
    with cpuframe.using_config('train', False):
        y_loaded = loaded.predictor(x).array
        y_gpu = _to_host(model_gpu.predictor(cuda.to_gpu(x)).array)
    numpy.testing.assert_allclose(y_loaded, y_gpu, rtol=1e-5, atol=1e-5)


def test_trainer_runs_on_the_gpu():
    x, t = _two_moons(256, 1)
    train = cpuframe.datasets.TupleDataset(x, t)
    model = L.Classifier(_MLP())
    model.to_device(GPU)
    optimizer = cpuframe.optimizers.Adam()
    optimizer.setup(model)
    it = cpuframe.iterators.SerialIterator(train, 32)
    test_it = cpuframe.iterators.SerialIterator(train, 64, repeat=False,
                                                shuffle=False)
    updater = cpuframe.training.updaters.StandardUpdater(it, optimizer,
                                                         device=GPU)
    with tempfile.TemporaryDirectory() as d:
        trainer = cpuframe.training.Trainer(updater, (50, 'epoch'), out=d)
        trainer.extend(cpuframe.training.extensions.Evaluator(
            test_it, model, device=GPU))
        log = cpuframe.training.extensions.LogReport()
        trainer.extend(log)
        trainer.run()
    assert log.log[-1]['validation/main/accuracy'] >= 0.9
