"""The communicator's collectives, object calls and model calls, at any
number of ranks (1 in the normal suite, 2 and 3 under mpiexec)."""
import numpy
import pytest

import cpuframe
import cpuframe.links as L
from cpuframe import mn, testing
from cpuframe.backends import intel64

pytest.importorskip('mpi4py', reason='cpuframe.mn needs mpi4py (the mpi extra)')


def test_ranks(comm):
    from mpi4py import MPI
    assert comm.size == MPI.COMM_WORLD.size
    assert comm.rank == MPI.COMM_WORLD.rank
    # One host here: the intra ranks are the ranks.
    assert comm.inter_size == 1 and comm.inter_rank == 0
    assert comm.intra_size == comm.size and comm.intra_rank == comm.rank
    assert comm.allgather(numpy.array([comm.rank])) == tuple(
        numpy.array([r]) for r in range(comm.size))


@testing.parameterize(*testing.product({
    'dtype': [numpy.float32, numpy.float64, numpy.float16, numpy.int32],
}))
class TestArrayCollectives:

    def _mine(self, comm, shape=(2, 3)):
        return (numpy.arange(numpy.prod(shape)).reshape(shape) + 10 * comm.rank
                ).astype(self.dtype)

    def test_allreduce_is_the_sum(self, comm):
        out = comm.allreduce(self._mine(comm))
        expected = sum((numpy.arange(6).reshape(2, 3) + 10 * r)
                       for r in range(comm.size)).astype(self.dtype)
        assert out.dtype == self.dtype
        numpy.testing.assert_array_equal(out, expected)

    def test_bcast_from_every_root(self, comm):
        for root in range(comm.size):
            data = self._mine(comm) if comm.rank == root else None
            out = comm.bcast(data, root=root)
            numpy.testing.assert_array_equal(
                out, (numpy.arange(6).reshape(2, 3) + 10 * root).astype(
                    self.dtype))

    def test_gather_and_allgather_with_ragged_shapes(self, comm):
        mine = self._mine(comm, shape=(comm.rank + 1, 2))
        everyone = [(numpy.arange(2 * (r + 1)).reshape(r + 1, 2) + 10 * r)
                    .astype(self.dtype) for r in range(comm.size)]
        gathered = comm.gather(mine, root=0)
        if comm.rank == 0:
            assert len(gathered) == comm.size
            for got, want in zip(gathered, everyone):
                numpy.testing.assert_array_equal(got, want)
        else:
            assert gathered is None
        for got, want in zip(comm.allgather(mine), everyone):
            assert got.dtype == self.dtype
            numpy.testing.assert_array_equal(got, want)

    def test_scatter_and_alltoall(self, comm):
        parts = tuple(numpy.full((r + 1,), 100 + r, self.dtype)
                      for r in range(comm.size))
        out = comm.scatter(parts if comm.rank == 0 else None, root=0)
        numpy.testing.assert_array_equal(out, parts[comm.rank])
        sent = tuple(numpy.full((2,), 10 * comm.rank + r, self.dtype)
                     for r in range(comm.size))
        received = comm.alltoall(sent)
        for src, got in enumerate(received):
            numpy.testing.assert_array_equal(
                got, numpy.full((2,), 10 * src + comm.rank, self.dtype))


def test_send_recv_ring_with_tuples(comm):
    if comm.size < 2:
        pytest.skip('needs two ranks')
    right, left = (comm.rank + 1) % comm.size, (comm.rank - 1) % comm.size
    if comm.rank % 2 == 0:
        comm.send((numpy.full(3, comm.rank), numpy.eye(2)), right, 7)
        got = comm.recv(left, 7)
    else:
        got = comm.recv(left, 7)
        comm.send((numpy.full(3, comm.rank), numpy.eye(2)), right, 7)
    numpy.testing.assert_array_equal(got[0], numpy.full(3, left))
    numpy.testing.assert_array_equal(got[1], numpy.eye(2))
    if comm.rank == 0:
        comm.send_obj({'a': 1}, dest=1, tag=3)
    elif comm.rank == 1:
        assert comm.recv_obj(0, tag=3) == {'a': 1}


def test_object_collectives(comm):
    assert comm.bcast_obj({'x': comm.rank}, root=0) == {'x': 0}
    gathered = comm.gather_obj(('r', comm.rank))
    assert gathered == ([('r', r) for r in range(comm.size)]
                        if comm.rank == 0 else None)
    assert comm.allreduce_obj(comm.rank + 1) == sum(range(1, comm.size + 1))


def test_split_by_parity(comm):
    sub = comm.split(comm.rank % 2, comm.rank)
    members = [r for r in range(comm.size) if r % 2 == comm.rank % 2]
    assert sub.size == len(members)
    assert sub.rank == members.index(comm.rank)
    total = sub.allreduce(numpy.array([comm.rank], numpy.int64))
    assert int(total[0]) == sum(members)


def _model(seed, device='@numpy'):
    rng = numpy.random.RandomState(seed)
    model = cpuframe.Sequential(L.Linear(4, 5), L.Linear(5, 3))
    for p in model.params():
        p.array[...] = rng.standard_normal(p.shape).astype(p.dtype)
    return model.to_device(device)


DEVICES = ['@numpy'] + (['@intel64'] if intel64.is_ideep_available() else [])


@pytest.mark.parametrize('device', DEVICES)
def test_bcast_data_copies_rank0(comm, device):
    model = _model(seed=comm.rank, device=device)
    comm.bcast_data(model)
    reference = _model(seed=0)
    for (name, p), (_, q) in zip(sorted(model.namedparams()),
                                 sorted(reference.namedparams())):
        numpy.testing.assert_array_equal(numpy.asarray(p.array), q.array,
                                         err_msg=name)


@pytest.mark.parametrize('device', DEVICES)
def test_multi_node_mean_grad_is_the_mean(comm, device):
    model = _model(seed=0, device=device)
    for i, p in enumerate(sorted(model.params(), key=lambda p: p.shape)):
        p.grad = p.device.send(numpy.full(p.shape, (comm.rank + 1) * (i + 1),
                                          p.dtype))
    comm.multi_node_mean_grad(model)
    mean_rank = numpy.mean(numpy.arange(1, comm.size + 1))
    for i, p in enumerate(sorted(model.params(), key=lambda p: p.shape)):
        numpy.testing.assert_allclose(numpy.asarray(p.grad),
                                      mean_rank * (i + 1), rtol=1e-6)


def test_zero_fill_gives_missing_gradients_as_zeros(comm):
    model = _model(seed=0)
    model[0].W.grad = numpy.full(model[0].W.shape, comm.rank + 1., numpy.float32)
    for p in (model[0].b, model[1].W, model[1].b):
        p.grad = None
    comm.multi_node_mean_grad(model, zero_fill=True)
    numpy.testing.assert_allclose(model[0].W.grad,
                                  numpy.mean(numpy.arange(1, comm.size + 1)))
    numpy.testing.assert_array_equal(model[1].b.grad, 0)


@testing.parameterize(
    {'reduce_dtype': numpy.float16, 'rtol': 1e-3},
    {'reduce_dtype': 'bfloat16', 'rtol': 1e-2},
    {'reduce_dtype': numpy.float64, 'rtol': 1e-7},
)
class TestReducedPrecision:
    def test_mean_in_reduced_dtype_is_close(self, comm):
        sub = mn.create_communicator('naive', allreduce_grad_dtype=self.reduce_dtype)
        model = _model(seed=0)
        rng = numpy.random.RandomState(comm.rank)
        grads = {}
        for name, p in model.namedparams():
            p.grad = rng.uniform(-1, 1, p.shape).astype(numpy.float32)
            grads[name] = p.grad.copy()
        everyone = comm.allgather(numpy.concatenate(
            [grads[n].ravel() for n in sorted(grads)]))
        sub.multi_node_mean_grad(model)
        got = numpy.concatenate([p.grad.ravel() for _, p in
                                 sorted(model.namedparams())])
        assert got.dtype == numpy.float32
        numpy.testing.assert_allclose(got, numpy.mean(everyone, axis=0),
                                      rtol=self.rtol, atol=self.rtol)


def test_different_model_fails_on_every_rank_naming_the_parameter(comm):
    model = cpuframe.Sequential(L.Linear(4, 5 + comm.rank), L.Linear(None, 3))
    if comm.size == 1:
        comm.bcast_data(model)   # nothing to differ from
        return
    with pytest.raises(ValueError) as info:
        comm.bcast_data(model)
    message = str(info.value)
    assert "'/0/W' has shape (5, 4) float32 on rank 0 but (6, 4)" in message
    assert 'bcast_data' in message
    # The communicator still works afterwards (nothing was left in flight).
    assert comm.allreduce_obj(1) == comm.size


def test_bad_arguments(comm):
    with pytest.raises(ValueError, match='expected root as a rank'):
        comm.bcast(numpy.zeros(1), root=comm.size)
    with pytest.raises(TypeError, match='bcast: expected a NumPy, intel64 or CuPy'):
        comm.bcast(object() if comm.rank == 0 else None)
    if comm.rank == 0:
        with pytest.raises(ValueError, match=r'scatter: expected \d+ arrays'):
            comm.scatter(tuple(numpy.zeros(1) for _ in range(comm.size + 1)))
    else:
        with pytest.raises(ValueError, match='on root rank 0'):
            comm.scatter(None)


def test_create_communicator_names():
    with pytest.raises(ValueError, match="unrecognized communicator 'nccl'"):
        mn.create_communicator('nccl')
    from cpuframe.backends import cuda
    if not cuda.available:
        with pytest.raises(ValueError, match="'pure_nccl' needs CuPy"):
            mn.create_communicator('pure_nccl')
        assert mn.create_communicator().name == 'naive'
    for name in mn.communicators.CPU_COMMUNICATORS:
        assert mn.create_communicator(name).name == name
    with pytest.raises(ValueError, match='allreduce_grad_dtype'):
        mn.create_communicator('naive', allreduce_grad_dtype=numpy.int32)


@pytest.mark.parametrize('device', DEVICES)
def test_large_parameters_take_the_in_place_route(comm, device):
    """A parameter over 1 MiB is reduced (and broadcast) in its own array."""
    from cpuframe.mn.communicators import mpi_communicator
    units = 600
    assert units * units * 4 >= mpi_communicator.DIRECT_BYTES
    model = cpuframe.Sequential(L.Linear(units, units), L.Linear(units, 3))
    rng = numpy.random.RandomState(comm.rank)
    for p in model.params():
        p.array[...] = rng.standard_normal(p.shape)
    model.to_device(device)
    comm.bcast_data(model)
    reference = numpy.random.RandomState(0)
    for p in model.params():
        numpy.testing.assert_array_equal(
            numpy.asarray(p.array), reference.standard_normal(p.shape).astype(
                numpy.float32))
    for p in model.params():
        p.grad = p.device.send(rng.standard_normal(p.shape).astype(p.dtype))
    everyone = comm.allgather(numpy.concatenate(
        [numpy.asarray(p.grad).ravel() for _, p in sorted(model.namedparams())]))
    comm.multi_node_mean_grad(model)
    got = numpy.concatenate(
        [numpy.asarray(p.grad).ravel() for _, p in sorted(model.namedparams())])
    numpy.testing.assert_allclose(got, numpy.mean(everyone, axis=0), rtol=1e-6,
                                  atol=1e-7)


def test_copies_share_the_communicator_and_split_ones_free(comm):
    import copy
    assert copy.copy(comm) is comm and copy.deepcopy(comm) is comm
    # A model holding a communicator deep-copies (MultiNodeChainList does).
    holder = {'comm': comm, 'w': numpy.zeros(2)}
    clone = copy.deepcopy(holder)
    assert clone['comm'] is comm and clone['w'] is not holder['w']
    sub = comm.split(0, comm.rank)
    assert sub.allreduce_obj(1) == comm.size
    sub.finalize()
    from mpi4py import MPI
    assert sub.mpi_comm == MPI.COMM_NULL
    comm.finalize()      # the world communicator stays usable
    assert comm.allreduce_obj(1) == comm.size


@pytest.mark.parametrize('dtype', ['bfloat16', 'float16'])
def test_16_bit_floats_move_bit_for_bit(comm, dtype):
    # Not every MPI has a float16 datatype (Open MPI answers MPI_ERR_TYPE)
    # and none has bfloat16: such arrays travel as their bits.
    import ml_dtypes
    dt = numpy.dtype(getattr(ml_dtypes, dtype, None) or dtype)
    special = numpy.array([numpy.nan, numpy.inf, -numpy.inf, -0.0, 1e-8,
                           3.0e4], numpy.float32)

    def mine(rank, n=6):
        return numpy.concatenate(
            [special, numpy.arange(n, dtype=numpy.float32) + 10 * rank]
        ).astype(dt)

    def bits(a):
        return numpy.asarray(a).view(numpy.uint16)

    for root in range(comm.size):
        out = comm.bcast(mine(comm.rank) if comm.rank == root else None,
                         root=root)
        assert out.dtype == dt
        numpy.testing.assert_array_equal(bits(out), bits(mine(root)))
    got = comm.allgather(mine(comm.rank, comm.rank + 1))
    for r, a in enumerate(got):
        assert a.dtype == dt
        numpy.testing.assert_array_equal(bits(a), bits(mine(r, r + 1)))
    gathered = comm.gather(mine(comm.rank), root=0)
    if comm.rank == 0:
        for r, a in enumerate(gathered):
            numpy.testing.assert_array_equal(bits(a), bits(mine(r)))
    parts = tuple(mine(r) for r in range(comm.size))
    out = comm.scatter(parts if comm.rank == 0 else None, root=0)
    numpy.testing.assert_array_equal(bits(out), bits(mine(comm.rank)))
    got = comm.alltoall(tuple(mine(comm.rank) for _ in range(comm.size)))
    for r, a in enumerate(got):
        numpy.testing.assert_array_equal(bits(a), bits(mine(r)))
    if comm.size > 1:
        if comm.rank == 0:
            comm.send(mine(0), dest=1, tag=3)
        elif comm.rank == 1:
            numpy.testing.assert_array_equal(
                bits(comm.recv(source=0, tag=3)), bits(mine(0)))
