"""MultiNodeBatchNormalization is BatchNormalization over the concatenated
batch of every rank: outputs, input gradients, gamma/beta gradients (the
sum over the ranks' losses divided by the number of ranks: ChainerMN's
convention, which the multi-node optimizer's mean turns into the gradient
of the mean loss) and running statistics.  On one rank it is exactly
BatchNormalization."""
import numpy
import pytest
from testhelpers.mn_model import global_sum, numerical_grad_across

import cpuframe
import cpuframe.functions as F
import cpuframe.links as L
from cpuframe import mn
from cpuframe.backends import intel64
from cpuframe.mn.functions.batch_normalization import (
    multi_node_batch_normalization,
)

DEVICES = ['@numpy'] + (['@intel64'] if intel64.is_ideep_available() else [])
C = 3
STEPS = 3


def _local_batch(step, rank, dtype=numpy.float32):
    rng = numpy.random.RandomState(100 * step + rank)
    n = rank + 2                       # local batch sizes differ
    x = (rng.standard_normal((n, C, 2)) * (rank + 1) + rank).astype(dtype)
    w = rng.standard_normal((n, C, 2)).astype(dtype)
    return x, w


def _params(dtype=numpy.float32):
    rng = numpy.random.RandomState(7)
    return (rng.uniform(0.5, 1.5, C).astype(dtype),
            rng.uniform(-0.5, 0.5, C).astype(dtype))


def _pair(comm, device):
    gamma, beta = _params()
    bn = L.BatchNormalization(C, decay=0.8)
    mnbn = mn.links.MultiNodeBatchNormalization(C, comm, decay=0.8)
    for link in (bn, mnbn):
        link.gamma.array[...] = gamma
        link.beta.array[...] = beta
    return bn, mnbn.to_device(device)


def _host(a):
    return numpy.asarray(intel64.to_numpy(a) if intel64.is_native_array(a)
                         else a)


@pytest.mark.parametrize('device', DEVICES)
def test_equals_batch_normalization_over_the_whole_batch(comm, device):
    n, r = comm.size, comm.rank
    ref, mnbn = _pair(comm, device)
    for step in range(STEPS):
        parts = [_local_batch(step, q) for q in range(n)]
        xs = [p[0] for p in parts]
        x_all = cpuframe.Variable(numpy.concatenate(xs))
        y_all = ref(x_all)
        ref.cleargrads()
        F.sum(y_all * numpy.concatenate([p[1] for p in parts])).backward()

        x = cpuframe.Variable(xs[r].copy())
        mnbn.cleargrads()
        y = mnbn(x)
        F.sum(y * parts[r][1]).backward()

        lo = sum(len(a) for a in xs[:r])
        hi = lo + len(xs[r])
        numpy.testing.assert_allclose(_host(y.array), y_all.array[lo:hi],
                                      rtol=1e-5, atol=1e-5)
        numpy.testing.assert_allclose(_host(x.grad), x_all.grad[lo:hi],
                                      rtol=1e-4, atol=1e-5)
        numpy.testing.assert_allclose(_host(mnbn.gamma.grad) * n,
                                      ref.gamma.grad, rtol=1e-4, atol=1e-5)
        numpy.testing.assert_allclose(_host(mnbn.beta.grad) * n,
                                      ref.beta.grad, rtol=1e-4, atol=1e-5)
        numpy.testing.assert_allclose(_host(mnbn.avg_mean), ref.avg_mean,
                                      rtol=1e-5, atol=1e-6)
        numpy.testing.assert_allclose(_host(mnbn.avg_var), ref.avg_var,
                                      rtol=1e-5, atol=1e-6)
    # The running statistics moved (and are the same on every rank).
    assert not numpy.allclose(_host(mnbn.avg_var), 1.0)
    for other in comm.allgather(_host(mnbn.avg_mean)):
        numpy.testing.assert_array_equal(other, _host(mnbn.avg_mean))
    # Test mode uses them, without communication (rank 0 alone here).
    if r == 0:
        with cpuframe.using_config('train', False):
            xt = _local_batch(99, 0)[0]
            numpy.testing.assert_allclose(
                _host(mnbn(xt).array), ref(xt).array, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize('device', DEVICES)
def test_one_rank_is_exactly_batch_normalization(comm, device):
    sub = comm.split(comm.rank, 0)       # a communicator of size 1
    assert sub.size == 1
    gamma, beta = _params()
    ref = L.BatchNormalization(C).to_device(device)
    mnbn = mn.links.MultiNodeBatchNormalization(C, sub).to_device(device)
    for link in (ref, mnbn):
        link.gamma.array[...] = gamma
        link.beta.array[...] = beta
    for step in range(STEPS):
        x0, w = _local_batch(step, comm.rank)
        outs = []
        for link in (ref, mnbn):
            x = cpuframe.Variable(x0.copy())
            link.cleargrads()
            y = link(x)
            F.sum(y * w).backward()
            outs.append([_host(a) for a in (y.array, x.grad, link.gamma.grad,
                                            link.beta.grad, link.avg_mean,
                                            link.avg_var)])
        for a, b in zip(*outs):
            numpy.testing.assert_array_equal(a, b)


def test_gradients_match_central_differences(comm):
    """In float64, against the objective sum_r sum(y_r * w_r) computed by
    every rank together.  gamma and beta are replicated: the mean over the
    ranks of the numerical gradients w.r.t. each rank's copy is the
    sum's gradient / size, the convention of the analytic ones."""
    r = comm.rank
    x0, w = _local_batch(5, r, numpy.float64)
    g0, b0 = _params(numpy.float64)
    running = [numpy.zeros(C), numpy.ones(C)]

    def run(x, g, b):
        return multi_node_batch_normalization(
            x, g, b, comm, running_mean=running[0], running_var=running[1])

    x, g, b = (cpuframe.Variable(a.copy()) for a in (x0, g0, b0))
    y = run(x, g, b)
    F.sum(y * w).backward()

    def objective():
        return global_sum(comm, numpy.sum(run(x0, g0, b0).array * w))

    nx, ng, nb = numerical_grad_across(comm, objective, [x0, g0, b0],
                                       eps=1e-5)
    numpy.testing.assert_allclose(x.grad, nx, rtol=1e-5, atol=1e-8)
    numpy.testing.assert_allclose(g.grad, comm.allreduce(ng) / comm.size,
                                  rtol=1e-5, atol=1e-8)
    numpy.testing.assert_allclose(b.grad, comm.allreduce(nb) / comm.size,
                                  rtol=1e-5, atol=1e-8)


def test_double_backprop_is_refused(comm):
    if comm.size == 1:
        pytest.skip('on one rank it is BatchNormalization (double '
                    'backprop supported)')
    x = cpuframe.Variable(_local_batch(0, comm.rank)[0])
    link = mn.links.MultiNodeBatchNormalization(C, comm)
    y = link(x)
    gx, = cpuframe.grad([F.sum(y * y)], [x], enable_double_backprop=True)
    with pytest.raises(NotImplementedError, match='double'):
        F.sum(gx * gx).backward()


def test_finetune_averages_the_batches(comm):
    n = comm.size
    mnbn = mn.links.MultiNodeBatchNormalization(C, comm)
    batches = []
    for step in range(STEPS):
        parts = [_local_batch(step, q)[0] for q in range(n)]
        batches.append(numpy.concatenate(parts).astype(numpy.float64))
        mnbn(parts[comm.rank], finetune=True)
    assert mnbn.N == STEPS
    means = [b.mean(axis=(0, 2)) for b in batches]
    numpy.testing.assert_allclose(mnbn.avg_mean, numpy.mean(means, axis=0),
                                  rtol=1e-5)
    unbiased = [b.var(axis=(0, 2)) * (b.size / C) / (b.size / C - 1)
                for b in batches]
    numpy.testing.assert_allclose(mnbn.avg_var, numpy.mean(unbiased, axis=0),
                                  rtol=1e-5)
    mnbn.start_finetuning()
    assert mnbn.N == 0


def test_options(comm):
    link = mn.links.MultiNodeBatchNormalization(
        (2, 3), comm, use_gamma=False, use_beta=False, dtype=numpy.float64,
        communication_backend='mpi')
    assert link.gamma is None and link.beta is None
    assert link.avg_mean.shape == (2, 3) and link.avg_mean.dtype == \
        numpy.float64
    x = numpy.random.RandomState(comm.rank).standard_normal((4, 2, 3))
    y = link(x)
    whole = numpy.concatenate(comm.allgather(x))
    lo = 4 * comm.rank
    expected = (whole - whole.mean(0)) / numpy.sqrt(whole.var(0) + 2e-5)
    numpy.testing.assert_allclose(y.array, expected[lo:lo + 4], rtol=1e-6)
    with pytest.raises(ValueError, match='nccl'):
        mn.links.MultiNodeBatchNormalization(3, comm,
                                             communication_backend='nccl')
    with pytest.raises(ValueError):
        mn.links.MultiNodeBatchNormalization(3, comm,
                                             communication_backend='gloo')
    # Deep copies share the communicator.
    import copy
    assert copy.deepcopy(link).comm is comm


class _Net(cpuframe.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(4, C)
            self.bn1 = L.BatchNormalization(C, decay=0.7)
            self.seq = cpuframe.Sequential(L.Linear(C, C),
                                           L.BatchNormalization(C), F.relu)
            self.cl = cpuframe.ChainList(L.BatchNormalization(C),
                                         L.Linear(C, 2))

    def forward(self, x):
        h = self.bn1(self.l1(x))
        h = self.seq(h)
        return self.cl[1](self.cl[0](h))


def test_create_mnbn_model(comm):
    numpy.random.seed(0)
    net = _Net()
    net.bn1.avg_mean[...] = 0.25
    mnnet = mn.links.create_mnbn_model(net, comm)
    assert isinstance(mnnet.bn1, mn.links.MultiNodeBatchNormalization)
    assert isinstance(mnnet.seq[1], mn.links.MultiNodeBatchNormalization)
    assert isinstance(mnnet.cl[0], mn.links.MultiNodeBatchNormalization)
    assert isinstance(net.bn1, L.BatchNormalization)   # unchanged
    assert mnnet.bn1.decay == 0.7 and mnnet.bn1.comm is comm
    numpy.testing.assert_array_equal(mnnet.bn1.avg_mean, 0.25)
    names = sorted(n for n, _ in net.namedparams())
    assert sorted(n for n, _ in mnnet.namedparams()) == names
    for (_, p1), (_, p2) in zip(sorted(net.namedparams()),
                                  sorted(mnnet.namedparams())):
        numpy.testing.assert_array_equal(p1.array, p2.array)
        assert p1 is not p2
    # The copy computes as the original over the whole batch.
    parts = [numpy.random.RandomState(q).standard_normal((3, 4)).astype(
        numpy.float32) for q in range(comm.size)]
    y_ref = net(numpy.concatenate(parts)).array
    y = mnnet(parts[comm.rank]).array
    numpy.testing.assert_allclose(y, y_ref[3 * comm.rank:3 * comm.rank + 3],
                                  rtol=1e-4, atol=1e-5)


def _bn_mlp():
    rng = numpy.random.RandomState(3)
    model = cpuframe.Sequential(L.Linear(6, 8), L.BatchNormalization(8),
                                F.relu, L.Linear(8, 3))
    for p in model.params():
        p.array[...] = rng.uniform(-0.5, 0.5, p.shape).astype(p.dtype)
    return model


def _flat(model):
    arrays = [p.array for _, p in sorted(model.namedparams())]
    arrays += [model[1].avg_mean, model[1].avg_var]
    return numpy.concatenate([_host(a).ravel() for a in arrays])


@pytest.mark.parametrize('device', DEVICES)
def test_data_parallel_training_is_large_batch_training(comm, device):
    """create_mnbn_model + the multi-node optimizer on b samples per rank
    train as BatchNormalization in one process on the N*b samples."""
    from cpuframe import optimizers
    per_rank, steps = 3, 4
    n = per_rank * comm.size

    def batch(step):
        rng = numpy.random.RandomState(50 + step)
        return (rng.standard_normal((n, 6)).astype(numpy.float32) + step,
                rng.randint(0, 3, n).astype(numpy.int32))

    def loss(model, x, t):
        return F.softmax_cross_entropy(model(x), t)

    model = mn.links.create_mnbn_model(_bn_mlp(), comm).to_device(device)
    opt = mn.create_multi_node_optimizer(
        optimizers.MomentumSGD(lr=0.1), comm).setup(model)
    lo, hi = comm.rank * per_rank, (comm.rank + 1) * per_rank
    for step in range(steps + 1):
        x, t = batch(step)
        opt.update(loss, model, x[lo:hi], t[lo:hi])
    ref = _bn_mlp().to_device(device)
    ref_opt = optimizers.MomentumSGD(lr=0.1).setup(ref)
    x, t = batch(0)
    loss(ref, x, t)            # the first multi-node update does not step
    for step in range(1, steps + 1):
        x, t = batch(step)
        ref_opt.update(loss, ref, x, t)
    numpy.testing.assert_allclose(_flat(model), _flat(ref), rtol=1e-4,
                                  atol=1e-5)
    assert numpy.abs(_flat(model) - _flat(_bn_mlp())).max() > 1e-2
