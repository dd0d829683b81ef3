"""The job test_multi_host.py runs on every namespace host (one rank each):
data-parallel training of a small MLP on separable synthetic data with
cpuframe.mn.  Rank 0 prints ``RESULT {json}``: every rank's host name,
accuracy on the whole data set, parameter digest, and the gradient bytes
averaged per step."""
import hashlib
import json
import socket
import sys

import numpy

import cpuframe
import cpuframe.functions as F
import cpuframe.links as L
from cpuframe import mn, optimizers
from cpuframe.datasets import TupleDataset

EPOCHS = 8
BATCH = 32      # per rank


def data(n=1024, classes=4, dim=16):
    rng = numpy.random.RandomState(0)
    centers = rng.standard_normal((classes, dim)).astype(numpy.float32) * 2
    t = rng.randint(0, classes, n).astype(numpy.int32)
    x = centers[t] + rng.standard_normal((n, dim)).astype(numpy.float32)
    return x, t


def main():
    comm = mn.create_communicator('naive')
    x, t = data()
    # Different initial weights on every rank: the optimizer's first update
    # broadcasts rank 0's, so the final digests agree only if that works.
    numpy.random.seed(comm.rank)
    model = cpuframe.Sequential(L.Linear(16, 256), F.relu, L.Linear(256, 4))
    opt = mn.create_multi_node_optimizer(
        optimizers.MomentumSGD(lr=0.05), comm).setup(model)
    train = mn.scatter_dataset(TupleDataset(x, t), comm, shuffle=True, seed=0)
    rng = numpy.random.RandomState(comm.rank)
    steps = 0
    for _ in range(EPOCHS):
        order = rng.permutation(len(train))
        for i in range(0, len(order) - BATCH + 1, BATCH):
            xb, tb = zip(*[train[j] for j in order[i:i + BATCH]])
            xb, tb = numpy.stack(xb), numpy.array(tb)
            opt.update(lambda xb=xb, tb=tb:
                       F.softmax_cross_entropy(model(xb), tb))
            steps += 1
    with cpuframe.using_config('train', False):
        accuracy = float(F.accuracy(model(x), t).array)
    flat = numpy.concatenate([numpy.asarray(p.array).ravel()
                              for _, p in sorted(model.namedparams())])
    mine = {'host': socket.gethostname(), 'accuracy': accuracy,
            'digest': hashlib.sha256(flat.tobytes()).hexdigest(),
            'steps': steps, 'grad_bytes': int(flat.nbytes)}
    everyone = comm.gather_obj(mine, root=0)
    if comm.rank == 0:
        print('RESULT ' + json.dumps(everyone), flush=True)
    sys.stdout.flush()


if __name__ == '__main__':
    main()
