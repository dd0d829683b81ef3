"""Differentiable collectives: forward values are the communicated arrays
and gradients are the analytic ones (and central differences of the
objective computed across the ranks).  Every rank's loss is weighted by a
rank-dependent factor, so a wrong routing of gradients shows."""
import numpy
import pytest
from testhelpers.mn_model import global_sum, numerical_grad_across

import cpuframe
import cpuframe.functions as F
from cpuframe.mn import functions as mnf

DT = numpy.float64


def _x(rank, shape=(2, 3)):
    rng = numpy.random.RandomState(10 + rank)
    return rng.uniform(-1, 1, shape).astype(DT)


def _check_numerically(comm, run, x0, analytic):
    def objective():
        loss = run(x0.copy())
        return global_sum(comm, 0.0 if loss is None else loss.array)
    num, = numerical_grad_across(comm, objective, [x0], eps=1e-5)
    numpy.testing.assert_allclose(analytic, num, rtol=1e-6, atol=1e-9)


def test_allgather(comm):
    n, r = comm.size, comm.rank
    x0 = _x(r, (r + 1, 3))      # the shapes differ between ranks

    def run(x0):
        x = cpuframe.Variable(x0)
        ys = mnf.allgather(comm, x)
        loss = sum(F.sum(y ** 2) * (r + 1) * (i + 1)
                   for i, y in enumerate(ys))
        return loss, x, ys

    loss, x, ys = run(x0)
    assert isinstance(ys, tuple) and len(ys) == n
    for i, y in enumerate(ys):
        numpy.testing.assert_array_equal(y.array, _x(i, (i + 1, 3)))
    loss.backward()
    # d/dx_r sum_q (q+1)(r+1) |x_r|^2 = 2 x_r (r+1) sum_q (q+1)
    expected = 2 * x0 * (r + 1) * sum(q + 1 for q in range(n))
    numpy.testing.assert_allclose(x.grad, expected, rtol=1e-12)
    _check_numerically(comm, lambda a: run(a)[0], x0, x.grad)


def test_alltoall(comm):
    n, r = comm.size, comm.rank
    xs0 = [_x(r * n + j, (j + 1, 2)) for j in range(n)]   # xs[j] to rank j

    def run(xs0):
        xs = [cpuframe.Variable(a) for a in xs0]
        ys = mnf.alltoall(comm, xs)
        loss = sum(F.sum(y * y) * (i + 1) * (r + 1) for i, y in enumerate(ys))
        return loss, xs, ys

    loss, xs, ys = run(xs0)
    assert len(ys) == n
    for i, y in enumerate(ys):          # from rank i: its xs[r]
        numpy.testing.assert_array_equal(y.array, _x(i * n + r, (r + 1, 2)))
    loss.backward()
    for j, x in enumerate(xs):
        # xs[j] landed on rank j as its ys[r]: weight (r+1)*(j+1)
        numpy.testing.assert_allclose(x.grad, 2 * xs0[j] * (r + 1) * (j + 1),
                                      rtol=1e-12)
    flat0 = numpy.concatenate([a.ravel() for a in xs0])

    def run_flat(flat):
        parts, off = [], 0
        for a in xs0:
            parts.append(flat[off:off + a.size].reshape(a.shape))
            off += a.size
        return run(parts)[0]

    _check_numerically(comm, run_flat, flat0,
                       numpy.concatenate([x.grad.ravel() for x in xs]))


def test_alltoall_wrong_length_raises_everywhere(comm):
    with pytest.raises(ValueError):
        mnf.alltoall(comm, [numpy.zeros(1, DT)] * (comm.size + 1))


@pytest.mark.parametrize('root_of', [lambda n: 0, lambda n: n - 1])
def test_bcast(comm, root_of):
    n, r = comm.size, comm.rank
    root = root_of(n)
    x0 = _x(root)

    def run(x0):
        x = cpuframe.Variable(x0)
        y = mnf.bcast(comm, x if r == root else None, root=root)
        return F.sum(F.sin(y)) * (r + 1), x, y

    loss, x, y = run(x0)
    numpy.testing.assert_array_equal(y.array, x0)
    loss.backward()
    if r == root:
        expected = numpy.cos(x0) * sum(q + 1 for q in range(n))
        numpy.testing.assert_allclose(x.grad, expected, rtol=1e-12)
        grad = x.grad
    else:
        assert x.grad is None
        grad = numpy.zeros_like(x0)
    _check_numerically(comm, lambda a: run(a)[0], x0, grad)


def test_gather(comm):
    n, r = comm.size, comm.rank
    root = n - 1
    x0 = _x(r, (r + 2,))

    def run(x0):
        x = cpuframe.Variable(x0)
        ys = mnf.gather(comm, x, root=root)
        if r == root:
            loss = sum(F.sum(y ** 3) * (i + 1) for i, y in enumerate(ys))
            return loss, x, ys
        return None, x, ys

    loss, x, ys = run(x0)
    if r == root:
        assert len(ys) == n
        for i, y in enumerate(ys):
            numpy.testing.assert_array_equal(y.array, _x(i, (i + 2,)))
        loss.backward()
    else:
        assert ys.shape == (0,)       # a delegate variable
        ys.backward()
    numpy.testing.assert_allclose(x.grad, 3 * x0 ** 2 * (r + 1), rtol=1e-12)
    _check_numerically(comm, lambda a: run(a)[0], x0, x.grad)


def test_scatter(comm):
    n, r = comm.size, comm.rank
    root = 0
    xs0 = [_x(100 + i, (i + 1, 2)) for i in range(n)]

    def run(xs0):
        xs = [cpuframe.Variable(a) for a in xs0]
        y = mnf.scatter(comm, xs if r == root else None, root=root)
        return F.sum(y * y) * (r + 1), xs, y

    loss, xs, y = run(xs0)
    numpy.testing.assert_array_equal(y.array, xs0[r])
    loss.backward()
    if r == root:
        for i, x in enumerate(xs):
            numpy.testing.assert_allclose(x.grad, 2 * xs0[i] * (i + 1),
                                          rtol=1e-12)
    flat0 = numpy.concatenate([a.ravel() for a in xs0])

    def run_flat(flat):
        parts, off = [], 0
        for a in xs0:
            parts.append(flat[off:off + a.size].reshape(a.shape))
            off += a.size
        return run(parts)[0]

    grad = (numpy.concatenate([x.grad.ravel() for x in xs]) if r == root
            else numpy.zeros_like(flat0))
    # Only the root's copy of xs matters.
    _check_numerically(comm, run_flat, flat0, grad)


def test_scatter_wrong_length_raises_everywhere(comm):
    xs = [numpy.zeros(1, DT)] * (comm.size + 1)
    with pytest.raises(ValueError):
        mnf.scatter(comm, xs if comm.rank == 0 else None, root=0)


def test_float16_moves(comm):
    x0 = _x(comm.rank).astype(numpy.float16)
    ys = mnf.allgather(comm, cpuframe.Variable(x0))
    for i, y in enumerate(ys):
        assert y.dtype == numpy.float16
        numpy.testing.assert_array_equal(y.array,
                                         _x(i).astype(numpy.float16))


def test_backward_runs_where_no_input_needs_a_gradient(comm):
    """Rank 0's input is a constant array: its backward still takes part
    in the collective, so the other ranks get their gradients."""
    n, r = comm.size, comm.rank
    x0 = _x(r)
    x = x0 if r == 0 else cpuframe.Variable(x0.copy())
    ys = mnf.allgather(comm, x)
    F.sum(F.stack(ys) * 2).backward()
    if r != 0:
        numpy.testing.assert_allclose(x.grad, numpy.full(x0.shape, 2.0 * n))
    ys = mnf.gather(comm, x, root=0)
    if r == 0:
        sum(F.sum(y * (i + 1)) for i, y in enumerate(ys)).backward()
    else:
        x.cleargrad()
        ys.backward()
        numpy.testing.assert_allclose(x.grad, numpy.full(x0.shape, r + 1.0))
