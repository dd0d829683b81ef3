"""cpuframe.mn.functions.send / recv / pseudo_connect: values cross ranks
and gradients come back, checked against central differences of the
objective computed across the ranks and against the same computation in
one process."""
import numpy
import pytest
from testhelpers.mn_model import global_sum, needs_ranks, numerical_grad_across

import cpuframe
import cpuframe.functions as F
from cpuframe import mn
from cpuframe.mn import functions as mnf

DT = numpy.float64


def _arrays(seed, *shapes):
    rng = numpy.random.RandomState(seed)
    return [rng.uniform(-1, 1, s).astype(DT) for s in shapes]


def _round_trip(comm, x0, w1, c0):
    """Rank 0 sends tanh(x0) to rank 1, which sends (h @ w1)^2 back; rank 0's
    loss is sum(c0 * that).  Returns the local loss (None elsewhere)."""
    if comm.rank == 0:
        h = F.tanh(x0)
        d = mnf.send(h, comm, rank=1)
        z = mnf.recv(comm, rank=1, delegate_variable=d)
        return F.sum(z * c0)
    if comm.rank == 1:
        h = mnf.recv(comm, rank=0)
        d = mnf.send(F.matmul(h, w1) ** 2, comm, rank=0)
        return d
    return None


def test_round_trip_gradient_matches_numerical(comm):
    needs_ranks(comm, 2)
    x0, w1, c0 = _arrays(0, (3, 4), (4, 2), (3, 2))
    x = cpuframe.Variable(x0.copy())
    w = cpuframe.Variable(w1.copy())
    out = _round_trip(comm, x, w, c0)
    if out is not None:
        out.backward()   # a delegate variable needs no initial gradient
    mine = {0: [x0], 1: [w1]}.get(comm.rank, [])

    def objective():
        out = _round_trip(comm, x0, w1, c0)
        return global_sum(comm, out.array if comm.rank == 0 else 0.0)

    num = numerical_grad_across(comm, objective, mine, eps=1e-5)
    if comm.rank == 0:
        numpy.testing.assert_allclose(x.grad, num[0], rtol=1e-6, atol=1e-8)
        # And the one-process computation.
        xr = cpuframe.Variable(x0.copy())
        F.sum(F.matmul(F.tanh(xr), w1) ** 2 * c0).backward()
        numpy.testing.assert_allclose(x.grad, xr.grad, rtol=1e-12)
    elif comm.rank == 1:
        numpy.testing.assert_allclose(w.grad, num[0], rtol=1e-6, atol=1e-8)
        wr = cpuframe.Variable(w1.copy())
        F.sum(F.matmul(numpy.tanh(x0), wr) ** 2 * c0).backward()
        numpy.testing.assert_allclose(w.grad, wr.grad, rtol=1e-12)


def test_tuples_and_force_tuple(comm):
    needs_ranks(comm, 2)
    a0, b0 = _arrays(1, (2, 3), (4,))
    if comm.rank == 0:
        d = mnf.send((cpuframe.Variable(a0 * 2), b0), comm, rank=1, tag=7)
        assert isinstance(d, cpuframe.Variable) and d.shape == (0,)
        assert d.grad is None
        d.backward()
        mnf.send(cpuframe.Variable(a0), comm, rank=1).backward()
    elif comm.rank == 1:
        ra, rb = mnf.recv(comm, rank=0, tag=7)
        numpy.testing.assert_array_equal(ra.array, 2 * a0)
        numpy.testing.assert_array_equal(rb.array, b0)
        F.sum(ra).backward()
        # A single array with force_tuple comes back as a 1-tuple.
        ys = mnf.recv(comm, rank=0, force_tuple=True)
        assert isinstance(ys, tuple) and len(ys) == 1
        numpy.testing.assert_array_equal(ys[0].array, a0)
        F.sum(ys[0]).backward()


def test_tuples_gradients(comm):
    needs_ranks(comm, 2)
    a0, b0 = _arrays(2, (2, 3), (4,))
    if comm.rank == 0:
        a, b = cpuframe.Variable(a0.copy()), cpuframe.Variable(b0.copy())
        mnf.send((a * 2, b), comm, rank=1).backward()
        numpy.testing.assert_allclose(a.grad, numpy.full((2, 3), 6.0))
        numpy.testing.assert_allclose(b.grad, 2 * b0)
    elif comm.rank == 1:
        ra, rb = mnf.recv(comm, rank=0)
        # rb's gradient, and ra's, go back together.
        (F.sum(ra * 3) + F.sum(rb * rb)).backward()


def test_constant_input_still_runs_backward(comm):
    """A sent array that needs no gradient still answers its peer's
    backward (ChainerMN's dummy input), so no rank waits forever."""
    needs_ranks(comm, 2)
    x0, = _arrays(3, (2, 2))
    if comm.rank == 0:
        d = mnf.send(x0, comm, rank=1)
        d.backward()     # receives (and drops) the gradient
    elif comm.rank == 1:
        w = cpuframe.Variable(numpy.ones((2, 2), DT))
        y = mnf.recv(comm, rank=0)
        F.sum(y * w).backward()
        numpy.testing.assert_array_equal(w.grad, x0)


def test_ring_pipeline_over_every_rank(comm):
    """rank r receives from r-1, multiplies by its weight and sends to r+1;
    the last rank sends back to rank 0, which takes the loss."""
    needs_ranks(comm, 2)
    n = comm.size
    ws = _arrays(4, *[(3, 3)] * n)
    x0, = _arrays(5, (2, 3))

    def run(w):
        r = comm.rank
        if r == 0:
            h = F.tanh(F.matmul(x0, w))
            d = mnf.send(h, comm, rank=1)
            z = mnf.recv(comm, rank=n - 1, delegate_variable=d)
            return F.sum(z * z)
        h = mnf.recv(comm, rank=r - 1)
        return mnf.send(F.tanh(F.matmul(h, w)), comm, rank=(r + 1) % n)

    w = cpuframe.Variable(ws[comm.rank].copy())
    run(w).backward()

    def objective():
        out = run(ws[comm.rank])
        return global_sum(comm, out.array if comm.rank == 0 else 0.0)

    num, = numerical_grad_across(comm, objective, [ws[comm.rank]], eps=1e-5)
    numpy.testing.assert_allclose(w.grad, num, rtol=1e-6, atol=1e-8)
    # Against the whole chain in one process.
    wr = [cpuframe.Variable(a.copy()) for a in ws]
    h = x0
    for v in wr:
        h = F.tanh(F.matmul(h, v))
    F.sum(h * h).backward()
    numpy.testing.assert_allclose(w.grad, wr[comm.rank].grad, rtol=1e-12)


def test_gradient_penalty_through_recv(comm):
    """Double backprop where the local functions allow it: rank 1 penalizes
    the gradient of its local loss (a double backward of local functions)
    and the gradient of the whole objective still reaches rank 0."""
    needs_ranks(comm, 2)
    x0, w1 = _arrays(6, (3, 4), (4, 2))

    def rank1_objective(h, w):
        loss = F.sum(F.tanh(F.matmul(h, w)) ** 2)
        # Penalties on the gradients w.r.t. the local weight and w.r.t. the
        # received input: both differentiate local functions twice.
        gw, gh = cpuframe.grad([loss], [w, h], enable_double_backprop=True)
        return loss + F.sum(gw * gw) + F.sum(gh * gh)

    def run(x, w):
        if comm.rank == 0:
            return mnf.send(F.sin(x), comm, rank=1)
        if comm.rank == 1:
            return rank1_objective(mnf.recv(comm, rank=0), w)
        return None

    x = cpuframe.Variable(x0.copy())
    w = cpuframe.Variable(w1.copy())
    out = run(x, w)
    if out is not None:
        out.backward()
    mine = {0: [x0], 1: [w1]}.get(comm.rank, [])

    def objective():
        out = run(cpuframe.Variable(x0), cpuframe.Variable(w1))
        return global_sum(comm, out.array if comm.rank == 1 else 0.0)

    num = numerical_grad_across(comm, objective, mine, eps=1e-5)
    if comm.rank == 0:
        numpy.testing.assert_allclose(x.grad, num[0], rtol=1e-5, atol=1e-8)
    elif comm.rank == 1:
        numpy.testing.assert_allclose(w.grad, num[0], rtol=1e-5, atol=1e-8)


def test_enable_double_backprop_through_send_recv(comm):
    """Backward recording its own graph runs through send/recv and gives
    the first-order gradients (what crosses ranks is a constant)."""
    needs_ranks(comm, 2)
    x0, w1, c0 = _arrays(0, (3, 4), (4, 2), (3, 2))
    grads = []
    for double in (False, True):
        x = cpuframe.Variable(x0.copy())
        w = cpuframe.Variable(w1.copy())
        out = _round_trip(comm, x, w, c0)
        if out is not None:
            out.backward(enable_double_backprop=double)
        grads.append({0: x.grad, 1: w.grad}.get(comm.rank))
    if comm.rank < 2:
        numpy.testing.assert_array_equal(grads[0], grads[1])


def test_pseudo_connect(comm):
    a0, b0 = _arrays(7, (2, 3), (3,))
    d0 = cpuframe.Variable(numpy.ones(4, DT))
    a = cpuframe.Variable(a0.copy())
    b = cpuframe.Variable(b0.copy())
    ya, yb = mnf.pseudo_connect(F.sum(d0 * 2) * 0 + d0, a, b)
    numpy.testing.assert_array_equal(ya.array, a0)
    numpy.testing.assert_array_equal(yb.array, b0)
    (F.sum(ya * 2) + F.sum(yb)).backward()
    numpy.testing.assert_array_equal(a.grad, numpy.full((2, 3), 2.0))
    numpy.testing.assert_array_equal(b.grad, numpy.ones(3))
    # The delegate got a zero gradient: backward did reach it.
    numpy.testing.assert_array_equal(d0.grad, numpy.zeros(4))
    y, = mnf.pseudo_connect(None, a)
    numpy.testing.assert_array_equal(y.array, a0)


def test_send_to_self_is_an_error(comm):
    x = numpy.zeros(2, DT)
    with pytest.raises(ValueError, match='deadlock'):
        mnf.send(x, comm, rank=comm.rank)
    with pytest.raises(ValueError, match='deadlock'):
        mnf.recv(comm, rank=comm.rank)
    with pytest.raises(ValueError):
        mnf.send(x, comm, rank=comm.size)


def test_top_level_names():
    assert mn.functions.send is mnf.send
    assert mn.MultiNodeChainList is mn.links.MultiNodeChainList
    for name in ('send', 'recv', 'pseudo_connect', 'bcast', 'gather',
                 'scatter', 'allgather', 'alltoall'):
        assert callable(getattr(mn.functions, name))
