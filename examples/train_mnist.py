#!/usr/bin/env python
"""Chainer's classic MNIST example, on cpuframe.

Trains an MLP or a small convnet with the Trainer, Evaluator, LogReport,
PrintReport, ProgressBar, PlotReport and snapshots.  By default it uses the
handwritten digits that ship with cpuframe (8x8 UCI digits, no network
needed); ``--dataset mnist`` downloads and caches MNIST the way Chainer does.

    python examples/train_mnist.py --model cnn --device @intel64
    python examples/train_mnist.py --device @intel64 --dtype mixed_bf16
    python examples/train_mnist.py --resume result/snapshot_iter_200

Written against Chainer's API: replacing ``cpuframe`` by ``chainer`` in the
imports gives the Chainer script.
"""
import argparse

import numpy

import cpuframe as chainer
import cpuframe.functions as F
import cpuframe.links as L
from cpuframe import training
from cpuframe.training import extensions


class MLP(chainer.Chain):
    """Two hidden ReLU layers."""

    def __init__(self, n_units, n_out):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(None, n_units)
            self.l2 = L.Linear(None, n_units)
            self.l3 = L.Linear(None, n_out)

    def forward(self, x):
        h1 = F.relu(self.l1(x))
        h2 = F.relu(self.l2(h1))
        return self.l3(h2)


class ConvNet(chainer.Chain):
    """conv-bn-relu-pool twice, then two fully connected layers."""

    def __init__(self, n_out, channels=32):
        super().__init__()
        with self.init_scope():
            self.conv1 = L.Convolution2D(None, channels, 3, pad=1)
            self.bn1 = L.BatchNormalization(channels)
            self.conv2 = L.Convolution2D(None, 2 * channels, 3, pad=1)
            self.bn2 = L.BatchNormalization(2 * channels)
            self.fc1 = L.Linear(None, 128)
            self.fc2 = L.Linear(None, n_out)

    def forward(self, x):
        h = F.max_pooling_2d(F.relu(self.bn1(self.conv1(x))), 2)
        h = F.max_pooling_2d(F.relu(self.bn2(self.conv2(h))), 2)
        h = F.dropout(F.relu(self.fc1(h)), 0.3)
        return self.fc2(h)


#: ``--dtype`` choices and the ``config.dtype`` each sets (the mixed
#: specifiers are looked up on cpuframe when asked for).
DTYPES = ('float32', 'mixed16', 'mixed_bf16', 'float64')


def resolve_dtype(name):
    """The ``config.dtype`` value for a ``--dtype`` choice."""
    if name in ('mixed16', 'mixed_bf16'):
        spec = getattr(chainer, name, None)
        if spec is None:
            raise SystemExit('--dtype {}: this cpuframe has no cpuframe.{} '
                             '(the mode is not available)'.format(name, name))
        return spec
    return numpy.dtype(name).type


def dtype_name(dtype):
    """'float32', 'mixed_bf16', ... for a ``config.dtype`` value."""
    if isinstance(dtype, (type, str, numpy.dtype)):
        return numpy.dtype(dtype).name
    text = repr(dtype)  # the mixed specifiers: "dtype('mixed_bf16')"
    return text[len("dtype('"):-2] if text.startswith("dtype('") else text


def get_data(name, ndim):
    if name == 'digits':
        return chainer.datasets.get_digits(ndim=ndim, scale=1.0)
    if name == 'mnist':
        return chainer.datasets.get_mnist(ndim=ndim)
    raise ValueError('unknown dataset: {}'.format(name))


def main():
    parser = argparse.ArgumentParser(description='cpuframe example: MNIST')
    parser.add_argument('--batchsize', '-b', type=int, default=64)
    parser.add_argument('--epoch', '-e', type=int, default=10)
    parser.add_argument('--frequency', '-f', type=int, default=-1,
                        help='snapshot frequency in epochs (-1: end only)')
    parser.add_argument('--device', '-d', default='@numpy',
                        help="'@numpy' (or -1), '@intel64', '@cupy:N' (or N)")
    parser.add_argument('--out', '-o', default='result')
    parser.add_argument('--resume', '-r', default='')
    parser.add_argument('--unit', '-u', type=int, default=256)
    parser.add_argument('--model', choices=('mlp', 'cnn'), default='cnn')
    parser.add_argument('--dataset', choices=('digits', 'mnist'),
                        default='digits')
    parser.add_argument('--noplot', dest='plot', action='store_false')
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--dtype', choices=DTYPES, default=None,
                        help='config.dtype (default: float32, or what '
                        'CPUFRAME_DTYPE sets): mixed_bf16 is the bfloat16 '
                        'mixed mode (float32 master weights, bfloat16 oneDNN '
                        'ops; with --device @intel64), mixed16 Chainer\'s '
                        'float16 mixed mode (for GPUs: float16 has no fast '
                        'CPU route)')
    args = parser.parse_args()

    # Before the model is built: the links read config.dtype.
    if args.dtype is not None:
        chainer.global_config.dtype = resolve_dtype(args.dtype)
    numpy.random.seed(args.seed)
    try:
        device = chainer.get_device(args.device)
    except (ValueError, RuntimeError) as e:
        # One line naming the valid devices, not a traceback ('@intel',
        # Chainer's habit '--device 0' on a machine without CuPy).
        parser.error("--device {}: {} (valid: '@numpy' or -1, '@intel64', "
                     "'@cupy:N' or N with CuPy and a GPU)".format(
                         args.device, str(e).splitlines()[0]))
    print('Device: {}'.format(device))
    print('Model: {}, dataset: {}, minibatch: {}, epochs: {}, dtype: {}'.format(
        args.model, args.dataset, args.batchsize, args.epoch,
        dtype_name(chainer.config.dtype)))

    n_out = 10
    predictor = MLP(args.unit, n_out) if args.model == 'mlp' else ConvNet(n_out)
    model = L.Classifier(predictor)
    model.to_device(device)
    device.use()

    optimizer = chainer.optimizers.Adam()
    optimizer.setup(model)
    if args.dtype == 'mixed16':
        # float16 parameters: update float32 master copies and scale the
        # loss dynamically, as Chainer's mixed16 examples do.
        optimizer.use_fp32_update()
        optimizer.loss_scaling()

    train, test = get_data(args.dataset, ndim=1 if args.model == 'mlp' else 3)
    train_iter = chainer.iterators.SerialIterator(train, args.batchsize)
    test_iter = chainer.iterators.SerialIterator(test, args.batchsize,
                                                 repeat=False, shuffle=False)

    updater = training.updaters.StandardUpdater(train_iter, optimizer,
                                                device=device)
    trainer = training.Trainer(updater, (args.epoch, 'epoch'), out=args.out)
    trainer.extend(extensions.Evaluator(test_iter, model, device=device))
    frequency = args.epoch if args.frequency == -1 else max(1, args.frequency)
    trainer.extend(extensions.snapshot(), trigger=(frequency, 'epoch'))
    trainer.extend(extensions.LogReport())
    if args.plot and extensions.PlotReport.available():
        trainer.extend(extensions.PlotReport(
            ['main/loss', 'validation/main/loss'], 'epoch',
            filename='loss.png'))
        trainer.extend(extensions.PlotReport(
            ['main/accuracy', 'validation/main/accuracy'], 'epoch',
            filename='accuracy.png'))
    trainer.extend(extensions.PrintReport(
        ['epoch', 'main/loss', 'validation/main/loss', 'main/accuracy',
         'validation/main/accuracy', 'elapsed_time']))
    trainer.extend(extensions.ProgressBar())
    if args.resume:
        chainer.serializers.load_npz(args.resume, trainer)
    trainer.run()


if __name__ == '__main__':
    main()
