#!/usr/bin/env python
"""A Chainer 7 training script, unmodified: it imports ``chainer`` only.

Run it on cpuframe with::

    python -m cpuframe.compat examples/chainer_script.py --epoch 3

(or on Chainer itself with ``python examples/chainer_script.py``). It trains
an MLP on two interleaved spirals made with NumPy (no download), with the
Trainer, an Evaluator, LogReport and PrintReport, as Chainer's examples do.
"""
import argparse

import numpy as np

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import training
from chainer.training import extensions


class MLP(chainer.Chain):

    def __init__(self, n_units, n_out):
        super(MLP, self).__init__()
        with self.init_scope():
            self.l1 = L.Linear(None, n_units)
            self.l2 = L.Linear(None, n_units)
            self.l3 = L.Linear(None, n_out)

    def forward(self, x):
        h1 = F.relu(self.l1(x))
        h2 = F.relu(self.l2(h1))
        return self.l3(h2)


def spirals(n, seed):
    rng = np.random.RandomState(seed)
    t = rng.randint(0, 2, n).astype(np.int32)
    r = rng.uniform(0.1, 1.0, n)
    angle = 3.0 * np.pi * r + np.pi * t
    x = np.stack([r * np.cos(angle), r * np.sin(angle)], axis=1)
    x += rng.normal(0, 0.02, x.shape)
    return chainer.datasets.TupleDataset(x.astype(np.float32), t)


def main():
    parser = argparse.ArgumentParser(description='Chainer example: spirals')
    parser.add_argument('--batchsize', '-b', type=int, default=32)
    parser.add_argument('--epoch', '-e', type=int, default=20)
    parser.add_argument('--device', '-d', type=str, default='-1',
                        help='Device specifier: -1 (CPU), @intel64, 0 ...')
    parser.add_argument('--out', '-o', default='result')
    parser.add_argument('--unit', '-u', type=int, default=64)
    args = parser.parse_args()

    device = chainer.get_device(args.device)
    print('Device: {}'.format(device))
    np.random.seed(0)
    model = L.Classifier(MLP(args.unit, 2))
    model.to_device(device)
    device.use()

    optimizer = chainer.optimizers.Adam(alpha=0.01)
    optimizer.setup(model)

    train, test = spirals(2000, 0), spirals(500, 1)
    train_iter = chainer.iterators.SerialIterator(train, args.batchsize)
    test_iter = chainer.iterators.SerialIterator(test, args.batchsize,
                                                 repeat=False, shuffle=False)
    updater = training.updaters.StandardUpdater(
        train_iter, optimizer, device=device)
    trainer = training.Trainer(updater, (args.epoch, 'epoch'), out=args.out)
    trainer.extend(extensions.Evaluator(test_iter, model, device=device))
    trainer.extend(extensions.LogReport())
    trainer.extend(extensions.PrintReport(
        ['epoch', 'main/loss', 'validation/main/loss',
         'main/accuracy', 'validation/main/accuracy', 'elapsed_time']))
    trainer.run()


if __name__ == '__main__':
    main()
