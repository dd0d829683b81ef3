#!/usr/bin/env python
# An MLP trained by Chainer's training loop, as Chainer users write it (the
# shape of Chainer's examples/mnist/train_mnist.py: L.Classifier of a
# 784-100-100-10 MLP, SerialIterator, StandardUpdater, Trainer with
# Evaluator, LogReport and PrintReport; batch 100), on synthetic
# MNIST-shaped data. Each step is a few large products: the per-iteration
# cost of the training stack is the rest. Prints one JSON line.
import argparse
import io
import json
import time

import chainer
import chainer.functions as F
import chainer.links as L
import numpy as np
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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--device', '-d', default='-1')
    parser.add_argument('--batchsize', '-b', type=int, default=100)
    parser.add_argument('--iterations', '-i', type=int, default=300)
    parser.add_argument('--out', '-o', default='result')
    args = parser.parse_args()

    rng = np.random.RandomState(0)
    centers = rng.rand(10, 784).astype(np.float32)
    labels = rng.randint(10, size=3000).astype(np.int32)
    images = (centers[labels] +
              0.5 * rng.rand(3000, 784)).astype(np.float32)
    train = chainer.datasets.TupleDataset(images[:2500], labels[:2500])
    test = chainer.datasets.TupleDataset(images[2500:], labels[2500:])

    device = chainer.get_device(args.device)
    model = L.Classifier(MLP(100, 10))
    model.to_device(device)
    device.use()
    optimizer = chainer.optimizers.SGD(lr=0.05)
    optimizer.setup(model)
    train_iter = chainer.iterators.SerialIterator(train, args.batchsize)
    test_iter = chainer.iterators.SerialIterator(test, args.batchsize,
                                                 repeat=False, shuffle=False)
    updater = training.updaters.StandardUpdater(
        train_iter, optimizer, device=device)
    trainer = training.Trainer(updater, (args.iterations, 'iteration'),
                               out=args.out)
    trainer.extend(extensions.Evaluator(test_iter, model, device=device),
                   trigger=(100, 'iteration'))
    trainer.extend(extensions.LogReport(trigger=(100, 'iteration')))
    trainer.extend(extensions.PrintReport(
        ['epoch', 'iteration', 'main/loss', 'validation/main/loss',
         'main/accuracy', 'validation/main/accuracy'], out=io.StringIO()))

    start = time.perf_counter()
    trainer.run()
    seconds = time.perf_counter() - start
    log = trainer.get_extension('LogReport').log
    print(json.dumps({'seconds': seconds,
                      'accuracy': log[-1]['validation/main/accuracy']}))


if __name__ == '__main__':
    main()
