"""A ChainerMN 7 data-parallel MNIST-style script, written as ChainerMN's
documentation shows (run unmodified under cpuframe):

    mpiexec -n 2 python -m cpuframe.compat train_mnist_data_parallel.py

The data are generated (ten Gaussian clusters in 64 dimensions) so that
the script needs no download.
"""
import argparse

import chainer
import chainer.functions as F
import chainer.links as L
import chainermn
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


def get_clusters(n_train=2000, n_test=500, dim=64, seed=0):
    rng = np.random.RandomState(seed)
    centers = rng.normal(0, 1, (10, dim)).astype(np.float32)

    def make(n):
        t = rng.randint(0, 10, n).astype(np.int32)
        x = centers[t] + rng.normal(0, 1.0, (n, dim)).astype(np.float32)
        return chainer.datasets.TupleDataset(x, t)
    return make(n_train), make(n_test)


def main():
    parser = argparse.ArgumentParser(description='ChainerMN example: MNIST')
    parser.add_argument('--batchsize', '-b', type=int, default=100)
    parser.add_argument('--communicator', type=str, default='naive')
    parser.add_argument('--epoch', '-e', type=int, default=5)
    parser.add_argument('--out', '-o', default='result')
    parser.add_argument('--unit', '-u', type=int, default=100)
    args = parser.parse_args()

    comm = chainermn.create_communicator(args.communicator)
    device = -1

    if comm.rank == 0:
        print('==========================================')
        print('Num process (COMM_WORLD): {}'.format(comm.size))
        print('Using {} communicator'.format(args.communicator))
        print('==========================================')

    model = L.Classifier(MLP(args.unit, 10))
    optimizer = chainermn.create_multi_node_optimizer(
        chainer.optimizers.Adam(), comm)
    optimizer.setup(model)

    # Split and distribute the dataset. Only worker 0 loads the whole dataset.
    if comm.rank == 0:
        train, test = get_clusters()
    else:
        train, test = None, None
    train = chainermn.scatter_dataset(train, comm, shuffle=True)
    test = chainermn.scatter_dataset(test, comm, shuffle=True)

    train_iter = chainer.iterators.SerialIterator(train, args.batchsize)
    test_iter = chainer.iterators.SerialIterator(test, args.batchsize,
                                                 repeat=False, shuffle=False)

    updater = training.StandardUpdater(train_iter, optimizer, device=device)
    trainer = training.Trainer(updater, (args.epoch, 'epoch'), out=args.out)

    # Create a multi node evaluator from a standard Chainer evaluator.
    evaluator = extensions.Evaluator(test_iter, model, device=device)
    evaluator = chainermn.create_multi_node_evaluator(evaluator, comm)
    trainer.extend(evaluator)

    # Some display and output extensions are necessary only for one worker.
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
