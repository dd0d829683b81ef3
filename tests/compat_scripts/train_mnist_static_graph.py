#!/usr/bin/env python
# A Chainer 7 script in the shape of Chainer's
# examples/static_graph_optimizations/mnist/train_mnist.py: an MLP whose
# __call__ is decorated with @static_graph (and a variant with @static_code
# side-effect code), trained by the Trainer with Adam, evaluated, plotted and
# snapshotted. It imports chainer (and chainerx, as the example does) only; the
# tests run it unmodified through ``python -m cpuframe.compat``.
import argparse
import sys

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import static_code
from chainer import static_graph
from chainer import training
from chainer.training import extensions
import chainerx

import matplotlib
matplotlib.use('Agg')


class MLP(chainer.Chain):

    def __init__(self, n_units, n_out):
        super(MLP, self).__init__()
        with self.init_scope():
            self.l1 = L.Linear(None, n_units)
            self.l2 = L.Linear(None, n_units)
            self.l3 = L.Linear(None, n_out)

    @static_graph
    def __call__(self, x):
        h1 = F.relu(self.l1(x))
        h2 = F.relu(self.l2(h1))
        return self.l3(h2)


class MLPSideEffect(MLP):

    def __init__(self, n_units, n_out):
        super(MLPSideEffect, self).__init__(n_units, n_out)
        self.side_effect_counter = 0

    @static_code
    def count_call(self):
        # runs on every call, also when the schedule is replayed
        self.side_effect_counter += 1

    @static_graph
    def __call__(self, x):
        self.count_call()
        h1 = F.relu(self.l1(x))
        h2 = F.relu(self.l2(h1))
        return self.l3(h2)


def main():
    parser = argparse.ArgumentParser(description='static graph MNIST')
    parser.add_argument('--batchsize', '-b', type=int, default=100)
    parser.add_argument('--epoch', '-e', type=int, default=20)
    parser.add_argument('--device', '-d', type=str, default='-1')
    parser.add_argument('--out', '-o', default='result')
    parser.add_argument('--model', '-m', default='MLP')
    parser.add_argument('--unit', '-u', type=int, default=1000)
    args = parser.parse_args()

    device = chainer.get_device(args.device)
    if device.xp is chainerx:
        sys.stderr.write('This example does not support ChainerX devices.\n')
        sys.exit(1)
    print('Device: {}'.format(device))

    predictor = (MLP if args.model == 'MLP' else MLPSideEffect)(args.unit, 10)
    model = L.Classifier(predictor)
    model.to_device(device)
    device.use()

    optimizer = chainer.optimizers.Adam()
    optimizer.setup(model)

    train, test = chainer.datasets.get_mnist()
    train_iter = chainer.iterators.SerialIterator(train, args.batchsize)
    test_iter = chainer.iterators.SerialIterator(test, args.batchsize,
                                                 repeat=False, shuffle=False)
    updater = training.updaters.StandardUpdater(
        train_iter, optimizer, device=device)
    trainer = training.Trainer(updater, (args.epoch, 'epoch'), out=args.out)
    trainer.extend(extensions.Evaluator(test_iter, model, device=device))
    trainer.extend(extensions.DumpGraph('main/loss'))
    trainer.extend(extensions.snapshot(), trigger=(args.epoch, 'epoch'))
    trainer.extend(extensions.LogReport())
    trainer.extend(extensions.PlotReport(
        ['main/loss', 'validation/main/loss'], 'epoch', file_name='loss.png'))
    trainer.extend(extensions.PrintReport(
        ['epoch', 'main/loss', 'validation/main/loss',
         'main/accuracy', 'validation/main/accuracy', 'elapsed_time']))
    trainer.extend(extensions.ProgressBar())
    trainer.run()

    print('iterations: {}'.format(updater.iteration))
    print('schedules: {!r}'.format(predictor.schedule_manager))
    if args.model != 'MLP':
        print('side effect counter: {}'.format(predictor.side_effect_counter))


if __name__ == '__main__':
    main()
