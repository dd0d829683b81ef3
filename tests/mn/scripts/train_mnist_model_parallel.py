"""A ChainerMN 7 model-parallel MNIST-style script, written as ChainerMN's
model-parallel example shows (run unmodified under cpuframe):

    mpiexec -n 2 python -m cpuframe.compat train_mnist_model_parallel.py

Rank 0 holds the first and the last layer (and the loss), rank 1 the
middle one; activations go 0 -> 1 -> 0 and gradients back.  The data are
generated (ten Gaussian clusters in 64 dimensions): no download.
"""
import argparse

import numpy as np

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import training
from chainer.training import extensions
import chainermn
import chainermn.datasets


class MLP0SubA(chainer.Chain):
    def __init__(self, n_units):
        super(MLP0SubA, self).__init__()
        with self.init_scope():
            self.l1 = L.Linear(None, n_units)

    def forward(self, x):
        return F.relu(self.l1(x))


class MLP0SubB(chainer.Chain):
    def __init__(self, n_out):
        super(MLP0SubB, self).__init__()
        with self.init_scope():
            self.l3 = L.Linear(None, n_out)

    def forward(self, h):
        return self.l3(h)


class MLP0(chainermn.MultiNodeChainList):
    # Rank 0: the input layer (sends to rank 1) and the output layer
    # (receives from rank 1).
    def __init__(self, comm, n_units, n_out):
        super(MLP0, self).__init__(comm=comm)
        self.add_link(MLP0SubA(n_units), rank_in=None, rank_out=1)
        self.add_link(MLP0SubB(n_out), rank_in=1, rank_out=None)


class MLP1Sub(chainer.Chain):
    def __init__(self, n_units):
        super(MLP1Sub, self).__init__()
        with self.init_scope():
            self.l2 = L.Linear(None, n_units)

    def forward(self, h):
        return F.relu(self.l2(h))


class MLP1(chainermn.MultiNodeChainList):
    # Rank 1: the hidden layer, from rank 0 back to rank 0.
    def __init__(self, comm, n_units):
        super(MLP1, self).__init__(comm=comm)
        self.add_link(MLP1Sub(n_units), rank_in=0, rank_out=0)


def get_clusters(n_train=2000, n_test=500, dim=64, seed=0):
    rng = np.random.RandomState(seed)
    centers = rng.normal(0, 1, (10, dim)).astype(np.float32)

    def make(n):
        t = rng.randint(0, 10, n).astype(np.int32)
        x = centers[t] + rng.normal(0, 1.0, (n, dim)).astype(np.float32)
        return chainer.datasets.TupleDataset(x, t)
    return make(n_train), make(n_test)


def main():
    parser = argparse.ArgumentParser(
        description='ChainerMN example: pipelined neural network')
    parser.add_argument('--batchsize', '-b', type=int, default=100)
    parser.add_argument('--epoch', '-e', type=int, default=5)
    parser.add_argument('--out', '-o', default='result')
    parser.add_argument('--unit', '-u', type=int, default=100)
    args = parser.parse_args()

    comm = chainermn.create_communicator('naive')
    if comm.size != 2:
        raise ValueError('This example can only be executed on exactly 2 '
                         'processes.')

    if comm.rank == 0:
        model = L.Classifier(MLP0(comm, args.unit, 10))
    elif comm.rank == 1:
        model = MLP1(comm, args.unit)

    optimizer = chainer.optimizers.Adam()
    optimizer.setup(model)

    # Iterate dataset only on worker 0; worker 1 walks an empty dataset of
    # the same length so that both take the same number of steps.
    train, test = get_clusters()
    if comm.rank == 1:
        train = chainermn.datasets.create_empty_dataset(train)
        test = chainermn.datasets.create_empty_dataset(test)

    train_iter = chainer.iterators.SerialIterator(
        train, args.batchsize, shuffle=False)
    test_iter = chainer.iterators.SerialIterator(
        test, args.batchsize, repeat=False, shuffle=False)

    updater = training.StandardUpdater(train_iter, optimizer)
    trainer = training.Trainer(updater, (args.epoch, 'epoch'), out=args.out)
    trainer.extend(extensions.Evaluator(test_iter, model))

    # Some display and output extensions are necessary only for worker 0.
    if comm.rank == 0:
        trainer.extend(extensions.LogReport())
        trainer.extend(extensions.PrintReport(
            ['epoch', 'main/loss', 'validation/main/loss',
             'main/accuracy', 'validation/main/accuracy', 'elapsed_time']))

    trainer.run()
    if comm.rank == 0:
        log = trainer.get_extension('LogReport').log
        print('final validation accuracy {:.4f}'.format(
            log[-1]['validation/main/accuracy']))


if __name__ == '__main__':
    main()
