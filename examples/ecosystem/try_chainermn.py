"""Exercise ChainerMN (from Chainer 7.8.1) as a Chainer user would.

    mpiexec -n 2 python -m cpuframe.compat examples/ecosystem/try_chainermn.py

Every rank prints its own '[rank R] PASS/FAIL ...' lines.  Checks: the
'naive' communicator and its object/array collectives, data-parallel
training of a small MLP on an MNIST-like synthetic dataset with
create_multi_node_optimizer + scatter_dataset + create_multi_node_evaluator
in a Trainer, chainermn.functions (allgather, bcast, send/recv), and
MultiNodeBatchNormalization against a single-process BatchNormalization
over the global batch.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import chainer  # noqa: E402
import chainer.functions as F  # noqa: E402
import chainer.links as L  # noqa: E402
from chainer import training  # noqa: E402
from chainer.training import extensions  # noqa: E402

import _check  # noqa: E402
from _check import check, summary  # noqa: E402
import ecosystem_shims  # noqa: E402

ecosystem_shims.install()

try:
    import chainermn
    import_error = None
except Exception as e:  # noqa: BLE001
    chainermn = None
    import_error = e

from mpi4py import MPI  # noqa: E402
_check.prefix = '[rank %d] ' % MPI.COMM_WORLD.rank
if MPI.COMM_WORLD.rank == 0:
    print('shims applied: %s' % ecosystem_shims.applied)
    # Newer cpuframe's compat runner maps `import chainermn` to its own
    # cpuframe.mn unless CPUFRAME_KEEP_CHAINERMN=1: say which one runs.
    print('chainermn in use: %s' % (
        getattr(chainermn, '__file__', None) if chainermn is not None
        else None))


def imports():
    if import_error is not None:
        raise import_error


check('import chainermn', imports)
if chainermn is None:
    sys.exit(summary('try_chainermn'))

comm = check("create_communicator('naive')",
             chainermn.create_communicator, 'naive')
if comm is None:
    sys.exit(summary('try_chainermn'))
rank, size = comm.rank, comm.size
print('%srank=%d size=%d intra_rank=%d' % (_check.prefix, rank, size,
                                           comm.intra_rank))


def obj_collectives():
    assert comm.bcast_obj({'a': rank} if rank == 0 else None) == {'a': 0}
    assert comm.allreduce_obj(rank + 1) == size * (size + 1) // 2
    got = comm.gather_obj(rank)
    if rank == 0:
        assert got == list(range(size)), got


def array_collectives():
    x = np.full((3,), rank + 1, dtype=np.float32)
    s = comm.allreduce(x)
    np.testing.assert_allclose(s, np.full((3,), size * (size + 1) / 2))
    b = comm.bcast(np.arange(4, dtype=np.float32) * (rank + 1), root=0)
    np.testing.assert_allclose(b, np.arange(4))


check('comm.bcast_obj/allreduce_obj/gather_obj', obj_collectives)
check('comm.allreduce/bcast (ndarray)', array_collectives)


class MLP(chainer.Chain):
    def __init__(self, n_units=32, n_out=10):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(None, n_units)
            self.l2 = L.Linear(None, n_out)

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


def mnist_like(n, seed):
    r = np.random.RandomState(seed)
    centers = r.normal(0, 1, (10, 64)).astype(np.float32)
    t = r.randint(0, 10, n).astype(np.int32)
    x = centers[t] + r.normal(0, 0.3, (n, 64)).astype(np.float32)
    return chainer.datasets.TupleDataset(x, t)


def data_parallel_training():
    model = L.Classifier(MLP())
    optimizer = chainermn.create_multi_node_optimizer(
        chainer.optimizers.Adam(), comm)
    optimizer.setup(model)
    if rank == 0:
        train, test = chainer.datasets.split_dataset(mnist_like(500, 0),
                                                     400)
    else:
        train, test = None, None
    train = chainermn.scatter_dataset(train, comm, shuffle=True)
    test = chainermn.scatter_dataset(test, comm)
    assert len(train) == 400 // size, len(train)
    train_iter = chainer.iterators.SerialIterator(train, 20)
    test_iter = chainer.iterators.SerialIterator(test, 50, repeat=False,
                                                 shuffle=False)
    updater = training.StandardUpdater(train_iter, optimizer)
    out = '/tmp/cpuframe_try_chainermn_%d' % rank
    trainer = training.Trainer(updater, (3, 'epoch'), out=out)
    evaluator = extensions.Evaluator(test_iter, model)
    evaluator = chainermn.create_multi_node_evaluator(evaluator, comm)
    trainer.extend(evaluator)
    if rank == 0:
        trainer.extend(extensions.LogReport())
        trainer.extend(extensions.PrintReport(
            ['epoch', 'main/loss', 'validation/main/loss',
             'validation/main/accuracy']))
    trainer.run()
    # Data parallel: every rank must hold the same parameters.
    for name, p in sorted(model.namedparams()):
        root = comm.bcast_obj(np.asarray(p.array) if rank == 0 else None)
        np.testing.assert_allclose(p.array, root, rtol=0, atol=0,
                                   err_msg=name)
    # evaluator result is the mean over ranks (same on every rank)
    result = evaluator()
    acc = result['validation/main/accuracy']
    accs = comm.gather_obj(float(acc))
    if rank == 0:
        print('    accuracies per rank after allreduce: %s' % accs)
        assert max(accs) - min(accs) < 1e-6, accs
        assert acc > 0.3, acc  # chance is 0.1


check('data-parallel MLP training (create_multi_node_optimizer, '
      'scatter_dataset, create_multi_node_evaluator, Trainer)',
      data_parallel_training)


def initial_bcast():
    # create_multi_node_optimizer broadcasts rank 0's params on the first
    # update: models initialised differently end up equal.
    np.random.seed(rank)
    model = L.Linear(4, 3)
    opt = chainermn.create_multi_node_optimizer(
        chainer.optimizers.SGD(lr=0.0), comm)
    opt.setup(model)
    x = np.ones((2, 4), np.float32)
    model.cleargrads()
    F.sum(model(x)).backward()
    opt.update()
    root = comm.bcast_obj(model.W.array if rank == 0 else None)
    np.testing.assert_array_equal(model.W.array, root)


check('create_multi_node_optimizer broadcasts initial params',
      initial_bcast)


def functions_allgather():
    x = chainer.Variable(np.full((2, 3), rank, dtype=np.float32))
    ys = chainermn.functions.allgather(comm, x)
    assert len(ys) == size
    for r, y in enumerate(ys):
        np.testing.assert_allclose(y.array, np.full((2, 3), r))
    loss = sum(F.sum(y * (i + 1)) for i, y in enumerate(ys))
    loss.backward()
    # d loss / d x on rank r = (r + 1) summed over ranks' losses
    np.testing.assert_allclose(x.grad, np.full((2, 3), size * (rank + 1)))


def functions_bcast():
    x = chainer.Variable(np.full((2,), 7.0, np.float32)) if rank == 0 \
        else None
    y = chainermn.functions.bcast(comm, x, root=0)
    np.testing.assert_allclose(y.array, [7.0, 7.0])


def functions_send_recv():
    if size < 2:
        return
    if rank == 0:
        x = chainer.Variable(np.arange(3, dtype=np.float32))
        phi = chainermn.functions.send(x * 2, comm, rank=1)
        # Documented ChainerMN usage: backward() on the (empty) delegate
        # variable.  Chainer leaves its grad None when size != 1.
        error = None
        try:
            phi.backward()
        except ValueError as e:
            # keep rank 1 in step (it sends the gradient back), then report
            error = e
            phi.grad = np.zeros(phi.shape, phi.dtype)
            phi.backward()
        np.testing.assert_allclose(x.grad, np.full((3,), 2.0))
        if error is not None:
            raise error
    elif rank == 1:
        y = chainermn.functions.recv(comm, rank=0)
        np.testing.assert_allclose(y.array, np.arange(3) * 2)
        F.sum(y).backward()


check('chainermn.functions.allgather (+backward)', functions_allgather)
check('chainermn.functions.bcast', functions_bcast)
check('chainermn.functions.send/recv (+backward)', functions_send_recv)


def multi_node_bn():
    n_local, c = 4, 3
    r = np.random.RandomState(0)
    x_all = r.normal(1, 2, (n_local * size, c)).astype(np.float32)
    gy_all = r.normal(0, 1, (n_local * size, c)).astype(np.float32)
    sl = slice(rank * n_local, (rank + 1) * n_local)
    bn = chainermn.links.MultiNodeBatchNormalization(c, comm)
    init_mean = np.array(bn.avg_mean, copy=True)
    init_var = np.array(bn.avg_var, copy=True)
    x = chainer.Variable(x_all[sl])
    y = bn(x)
    y.grad = gy_all[sl]
    y.backward()
    # reference: one BatchNormalization over the global batch
    ref = L.BatchNormalization(c)
    xr = chainer.Variable(x_all)
    yr = ref(xr)
    yr.grad = gy_all
    yr.backward()
    np.testing.assert_allclose(y.array, yr.array[sl], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(x.grad, xr.grad[sl], rtol=1e-4, atol=1e-5)
    # gamma/beta grads are the local contributions (the optimizer
    # allreduces them)
    g = comm.allreduce(np.asarray(bn.gamma.grad))
    np.testing.assert_allclose(g, ref.gamma.grad, rtol=1e-4, atol=1e-5)
    if chainermn.__name__ == 'cpuframe.mn':
        # cpuframe.mn's contract: the running statistics of one
        # BatchNormalization over the global batch (initial avg_var ones,
        # the unbiased adjustment with the global batch size).
        np.testing.assert_allclose(bn.avg_mean, ref.avg_mean, rtol=1e-4,
                                   atol=1e-6, err_msg='avg_mean')
        np.testing.assert_allclose(bn.avg_var, ref.avg_var, rtol=1e-4,
                                   atol=1e-6, err_msg='avg_var')
        expect_mean = np.asarray(ref.avg_mean)
        expect_var = np.asarray(ref.avg_var)
    else:
        # Running statistics, as Chainer 7 + ChainerMN 7.8.1 compute them
        # (GeneralBatchNormalizationImpl.forward): the global mean/var from
        # the allreduce, but the unbiased adjustment with the LOCAL batch
        # size m = x.size // gamma.size, so avg_var differs from a
        # single-process BatchNormalization over the global batch.
        decay, m = 0.9, n_local
        expect_mean = decay * init_mean + (1 - decay) * x_all.mean(axis=0)
        expect_var = decay * init_var + \
            (1 - decay) * (m / (m - 1.)) * x_all.var(axis=0)
        np.testing.assert_allclose(bn.avg_mean, expect_mean, rtol=1e-4,
                                   atol=1e-6, err_msg='avg_mean')
        np.testing.assert_allclose(bn.avg_var, expect_var, rtol=1e-4,
                                   atol=1e-6, err_msg='avg_var (Chainer: '
                                   'decay * old + (1 - decay) * '
                                   'm_local/(m_local-1) * global var)')
        # ChainerMN 7.8.1 starts avg_mean AND avg_var at zeros
        # (chainermn/links/batch_normalization.py:58-60), unlike
        # L.BatchNormalization (avg_var ones).
        np.testing.assert_array_equal(init_mean, 0,
                                      err_msg='initial avg_mean')
        np.testing.assert_array_equal(init_var, 0, err_msg='initial avg_var '
                                      '(ChainerMN: zeros)')
    # test mode uses the running statistics
    with chainer.using_config('train', False):
        y2 = bn(x_all[sl])
    y2r = F.fixed_batch_normalization(
        x_all[sl], bn.gamma.array, bn.beta.array, expect_mean.astype('f'),
        expect_var.astype('f'), eps=bn.eps)
    np.testing.assert_allclose(y2.array, y2r.array, rtol=1e-4, atol=1e-5)


check('MultiNodeBatchNormalization == global-batch BatchNormalization',
      multi_node_bn)


def multi_node_iterator():
    # rank 0 iterates, the others receive its batches
    data = [np.full((2,), i, np.float32) for i in range(10)] \
        if rank == 0 else None
    it = chainer.iterators.SerialIterator(data, 4, shuffle=False) \
        if rank == 0 else None
    it = chainermn.iterators.create_multi_node_iterator(it, comm)
    batch = it.next()
    assert [float(b[0]) for b in batch] == [0, 1, 2, 3], batch
    assert it.epoch == 0 and abs(it.epoch_detail - 0.4) < 1e-9


def synchronized_iterator():
    data = list(range(10))
    it = chainer.iterators.SerialIterator(data, 5, shuffle=True)
    it = chainermn.iterators.create_synchronized_iterator(it, comm)
    batch = it.next()
    batches = comm.gather_obj(list(batch))
    if rank == 0:
        assert all(b == batches[0] for b in batches), batches


def checkpointer():
    model = L.Linear(2, 2)
    opt = chainermn.create_multi_node_optimizer(
        chainer.optimizers.SGD(), comm)
    opt.setup(model)
    it = chainer.iterators.SerialIterator(
        [(np.ones(2, np.float32), np.int32(0))] * 4, 2)
    updater = training.StandardUpdater(
        it, opt, loss_func=lambda x, t: F.softmax_cross_entropy(model(x), t))
    trainer = training.Trainer(updater, (2, 'iteration'),
                               out='/tmp/cpuframe_try_chainermn_ckpt')
    cp = chainermn.create_multi_node_checkpointer(name='try', comm=comm)
    cp.maybe_load(trainer, opt)
    trainer.extend(cp, trigger=(1, 'iteration'))
    trainer.run()
    cp.finalize()


def model_parallel():
    # chainermn.MultiNodeChainList: rank 0 -> rank 1 -> rank 0 (the
    # documented 'split MLP on 2 processes' example, small)
    if size < 2:
        return

    def mlp(n_in, n_hidden, n_out):
        return chainer.Sequential(L.Linear(n_in, n_hidden), F.relu,
                                  L.Linear(n_hidden, n_out))
    model = chainermn.MultiNodeChainList(comm)
    if rank == 0:
        model.add_link(mlp(8, 16, 8), rank_in=None, rank_out=1)
        model.add_link(mlp(4, 4, 2), rank_in=1, rank_out=None)
    elif rank == 1:
        model.add_link(mlp(8, 8, 4), rank_in=0, rank_out=0)
    else:
        return
    opt = chainer.optimizers.SGD(lr=0.1)  # each rank owns its own part
    opt.setup(model)
    error = None
    if rank == 0:
        x = np.random.RandomState(0).normal(size=(5, 8)).astype(np.float32)
        y = model(x)
        assert y.shape == (5, 2), y.shape
        loss = F.sum(y * y)
        model.cleargrads()
        loss.backward()
    else:
        phi = model()  # the delegate variable
        model.cleargrads()
        try:
            phi.backward()  # documented usage on the non-output rank
        except ValueError as e:
            error = e  # keep rank 0 in step, then report
            phi.grad = np.zeros(phi.shape, phi.dtype)
            phi.backward()
    grads = [p.grad for p in model.params()]
    assert all(g is not None and np.any(g != 0) for g in grads), \
        'some parameter got no gradient'
    opt.update()
    if error is not None:
        raise error


check('MultiNodeChainList model parallel (rank 0 -> 1 -> 0) + backward',
      model_parallel)
check('iterators.create_multi_node_iterator', multi_node_iterator)
check('iterators.create_synchronized_iterator', synchronized_iterator)
check('create_multi_node_checkpointer in a Trainer', checkpointer)

comm.mpi_comm.Barrier()
sys.exit(summary('try_chainermn'))
