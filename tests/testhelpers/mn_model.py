"""Helpers of the tests of cpuframe.mn's functions and links: numerical
gradients of an objective computed across the ranks."""
import numpy
import pytest


def needs_ranks(comm, n):
    if comm.size < n:
        pytest.skip('needs at least {} MPI processes (run under mpiexec -n '
                    '{}); this run has {}'.format(n, n, comm.size))


def global_sum(comm, local_value):
    """The sum over the ranks of a float each rank holds (0 where none)."""
    return comm.allreduce_obj(float(local_value))


def numerical_grad_across(comm, objective, arrays, eps=1e-2):
    """Central differences of ``objective()`` (a float, the same on every
    rank, computed by every rank together) w.r.t. this rank's ``arrays``.

    The ranks take turns: while one rank perturbs its arrays element by
    element, every rank evaluates ``objective()`` with it, so the
    communication inside stays matched.  Returns float64 arrays.
    """
    mine = sum(a.size for a in arrays)
    counts = [int(c[0]) for c in comm.allgather(numpy.array([mine]))]
    grads = [numpy.zeros(a.shape, numpy.float64) for a in arrays]
    for owner, count in enumerate(counts):
        for k in range(count):
            target = None
            if owner == comm.rank:
                offset = k
                for a, g in zip(arrays, grads):
                    if offset < a.size:
                        target = (a.reshape(-1), g.reshape(-1), offset)
                        break
                    offset -= a.size
            values = []
            for sign in (1, -1):
                if target is not None:
                    flat, _, i = target
                    orig = flat[i].copy()
                    flat[i] = orig + sign * eps
                values.append(objective())
                if target is not None:
                    flat[i] = orig
            if target is not None:
                _, gflat, i = target
                gflat[i] = (values[0] - values[1]) / (2 * eps)
    return grads
