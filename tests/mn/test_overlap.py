"""The multi-node optimizer reduces gradient buckets while backward runs:
the same means as reducing them all after backward, bit for bit (the
same buckets, the same reductions), buckets started before backward ends,
the same bucket order on every rank. Meaningful under ``mpiexec -n 2``
and ``-n 3`` (CI runs both); in one process the optimizer has nothing to
reduce and the tests check that nothing breaks."""
import numpy
import pytest

import cpuframe
import cpuframe.functions as F
import cpuframe.links as L
from cpuframe import mn, optimizers
from cpuframe.backends import intel64

pytest.importorskip('mpi4py', reason='cpuframe.mn needs mpi4py (the mpi extra)')

from cpuframe.mn.communicators import mpi_communicator  # noqa: E402

DEVICES = ['@numpy'] + (['@intel64'] if intel64.is_ideep_available() else [])


class _Net(cpuframe.Chain):
    """A convolution, a layer used twice (its gradient is final late) and
    a classifier."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            # (6 filters: oneDNN's blocked layouts pad them to 8)
            self.conv = L.Convolution2D(2, 6, 3, pad=1)
            self.mid = L.Linear(6 * 16, 24)
            self.twice = L.Linear(24, 24)
            self.out = L.Linear(24, 3)

    def forward(self, x, t):
        h = F.relu(self.conv(x))
        h = F.tanh(self.mid(h))
        h = F.tanh(self.twice(h))
        h = F.tanh(self.twice(h))
        return F.softmax_cross_entropy(self.out(h), t)


def _train(comm, device, steps=4, overlap=True, deferred=False,
           double_buffering=False, dtype=None):
    numpy.random.seed(0)
    model = _Net().to_device(device)
    opt = mn.create_multi_node_optimizer(
        optimizers.MomentumSGD(lr=0.1), comm, overlap=overlap,
        double_buffering=double_buffering).setup(model)
    rng = numpy.random.RandomState(100 + comm.rank)
    dev = cpuframe.get_device(device)
    ready = mpi_communicator._OverlapSession.ready
    if deferred:
        # the same session, every bucket started after backward
        mpi_communicator._OverlapSession.ready = lambda self, param: None
    try:
        with cpuframe.using_config('dtype', dtype or numpy.float32):
            for _ in range(steps + 1):
                x = dev.send(rng.standard_normal((4, 2, 4, 4)).astype(
                    numpy.float32))
                t = rng.randint(0, 3, 4).astype(numpy.int32)
                opt.update(lambda x=x, t=t: model(x, t))
    finally:
        mpi_communicator._OverlapSession.ready = ready
    return {n: numpy.array(numpy.asarray(p.array))
            for n, p in model.namedparams()}


def _communicator(comm, **kwargs):
    if not kwargs:
        return comm
    return mn.create_communicator('naive', comm.mpi_comm, **kwargs)


@pytest.mark.parametrize('device', DEVICES)
@pytest.mark.parametrize('kwargs', [
    {}, {'bucket_bytes': 4096}, {'allreduce_grad_dtype': numpy.float16},
    {'allreduce_grad_dtype': 'bfloat16', 'bucket_bytes': 4096}])
def test_overlapped_means_equal_the_deferred_ones_bit_for_bit(comm, device,
                                                               kwargs):
    c = _communicator(comm, **kwargs)
    a = _train(c, device)
    c._grad_orders.clear()
    b = _train(c, device, deferred=True)
    for name in a:
        assert a[name].tobytes() == b[name].tobytes(), name
    # the same on every rank, and the run moved the parameters
    mine = numpy.concatenate([a[n].ravel() for n in sorted(a)])
    for theirs in comm.allgather(mine):
        assert theirs.tobytes() == mine.tobytes()
    numpy.random.seed(0)
    start = _Net()
    assert max(numpy.abs(a[n] - numpy.asarray(p.array)).max()
               for n, p in start.namedparams()) > 1e-3


@pytest.mark.parametrize('device', DEVICES)
def test_overlap_agrees_with_the_reduction_after_backward(comm, device):
    a = _train(comm, device)
    b = _train(comm, device, overlap=False)
    for name in a:
        if comm.size <= 2:
            # two summands: the same sum whatever the buckets
            assert a[name].tobytes() == b[name].tobytes(), name
        else:
            numpy.testing.assert_allclose(a[name], b[name], rtol=1e-6,
                                          atol=1e-7)


def test_buckets_start_while_backward_runs(comm, monkeypatch):
    if comm.size == 1:
        pytest.skip('one rank reduces nothing')
    c = mn.create_communicator('naive', comm.mpi_comm, bucket_bytes=2048)
    started = []
    finishing = []
    iallreduce = c.mpi_comm.Iallreduce

    def counting(*args, **kwargs):
        started.append(len(finishing))
        return iallreduce(*args, **kwargs)

    finish = mpi_communicator._OverlapSession.finish

    def marking(self):
        finishing.append(True)
        return finish(self)

    monkeypatch.setattr(mpi_communicator._OverlapSession, 'finish', marking)

    class Comm:
        """The MPI communicator with Iallreduce counted."""

        def __init__(self, real):
            self._real = real

        def __getattr__(self, name):
            if name == 'Iallreduce':
                return counting
            return getattr(self._real, name)

    c.mpi_comm = Comm(c.mpi_comm)
    _train(c, '@numpy', steps=2)
    # some buckets of each step started before its finish() was called
    assert started.count(0) >= 2, started
    # the order of the next steps is rank 0's, on every rank
    orders = list(c._grad_orders.values())
    assert len(orders) == 1
    assert comm.mpi_comm.allgather(orders[0]) == [orders[0]] * comm.size


def test_double_buffering_and_mixed_bf16_keep_working(comm):
    a = _train(comm, '@numpy', double_buffering=True)
    b = _train(comm, '@numpy', double_buffering=True, overlap=False)
    for name in a:
        assert a[name].tobytes() == b[name].tobytes(), name
    c = _train(comm, '@numpy', dtype=cpuframe.mixed_bf16)
    d = _train(comm, '@numpy', dtype=cpuframe.mixed_bf16, deferred=True)
    for name in c:
        assert c[name].tobytes() == d[name].tobytes(), name


def test_lazily_initialized_links_take_the_broadcast_first(comm):
    numpy.random.seed(0)
    model = cpuframe.Sequential(L.Linear(None, 5), F.relu, L.Linear(5, 2))
    opt = mn.create_multi_node_optimizer(optimizers.SGD(lr=0.1),
                                         comm).setup(model)
    rng = numpy.random.RandomState(comm.rank)
    for _ in range(3):
        x = rng.rand(3, 4).astype(numpy.float32)
        t = rng.randint(0, 2, 3).astype(numpy.int32)
        opt.update(lambda x=x, t=t: F.softmax_cross_entropy(model(x), t))
    mine = numpy.concatenate([numpy.asarray(p.array).ravel()
                              for _, p in sorted(model.namedparams())])
    for theirs in comm.allgather(mine):
        assert theirs.tobytes() == mine.tobytes()
    assert opt.t == 2  # the first update broadcast, the others stepped


@pytest.mark.skipif(not intel64.is_ideep_available(),
                    reason='needs the native module')
def test_gradients_in_another_layout_travel_in_the_parameters(comm,
                                                             monkeypatch):
    # Under 'always' the convolution's filter adopts oneDNN's blocked
    # layout, which the buckets carry raw; a gradient that arrives as a
    # NumPy array (a small layer's backward on NumPy) is re-laid out into
    # the filter's layout before it travels.
    ready = mpi_communicator._OverlapSession.ready

    def numpy_grads(self, param):
        if intel64.is_native_array(param.grad):
            param.grad = intel64.to_numpy(param.grad).copy()
        return ready(self, param)

    with cpuframe.using_config('use_ideep', 'always'):
        want = _train(comm, '@intel64', overlap=False)
        monkeypatch.setattr(mpi_communicator._OverlapSession, 'ready',
                            numpy_grads)
        got = _train(comm, '@intel64')
    for name in want:
        numpy.testing.assert_allclose(got[name], want[name], rtol=1e-6,
                                      atol=1e-7, err_msg=name)
