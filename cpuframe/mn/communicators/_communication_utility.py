"""ChainerMN's ``communicators._communication_utility``: the rank layout of
a job and the broadcast of a large pickled object in chunks.

ChainerMN code and tests import these by path; cpuframe.mn's communicators
use them too.
"""
import pickle

import numpy

from cpuframe.mn import _mpi

#: The largest count one MPI call takes (a C ``int``).
INT_MAX = 2147483647


def init_ranks(mpi_comm):
    """``(rank, intra_rank, intra_size, inter_rank, inter_size)`` of this
    process in ``mpi_comm`` (collective over it).

    ``intra_*`` number the processes of ``mpi_comm`` that share this host's
    memory (in rank order) and ``inter_*`` the hosts, ordered by their
    lowest rank, as ChainerMN's host-name grouping orders them.
    """
    MPI = _mpi.get()
    local = mpi_comm.Split_type(MPI.COMM_TYPE_SHARED, key=mpi_comm.rank)
    try:
        intra_rank, intra_size = local.rank, local.size
        host_leader = local.bcast(mpi_comm.rank, root=0)
    finally:
        local.Free()
    leaders = sorted(set(mpi_comm.allgather(host_leader)))
    return (mpi_comm.rank, intra_rank, intra_size,
            leaders.index(host_leader), len(leaders))


def init_intra_mpi_comm(mpi_comm, intra_rank, inter_rank):
    """The communicator of the processes on this host (collective)."""
    return mpi_comm.Split(inter_rank, intra_rank)


def init_inter_mpi_comm(mpi_comm, intra_rank, inter_rank):
    """The communicator of the processes with this ``intra_rank`` on every
    host (collective)."""
    return mpi_comm.Split(intra_rank, inter_rank)


def chunked_bcast_obj(obj, mpi_comm, max_buf_len=256 * 1024 * 1024, root=0):
    """Broadcast a picklable ``obj`` from ``root`` in chunks of at most
    ``max_buf_len`` bytes (collective over the raw ``mpi4py`` communicator
    ``mpi_comm``): an object whose pickle exceeds what one MPI call moves
    still arrives.

    ``obj`` is given on ``root`` only (None elsewhere), as ChainerMN asserts.
    ``root`` gets ``obj`` itself back, the other ranks an unpickled copy.
    """
    assert 0 < max_buf_len < INT_MAX, \
        'chunked_bcast_obj: max_buf_len must lie in (0, INT_MAX)'
    assert mpi_comm.rank != root or obj is not None, \
        'chunked_bcast_obj: the root must give the object'
    assert mpi_comm.rank == root or obj is None, \
        'chunked_bcast_obj: only the root gives an object'
    MPI = _mpi.get()
    if mpi_comm.rank == root:
        payload = numpy.frombuffer(
            pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL), numpy.uint8)
        header = (-(-payload.size // max_buf_len), payload.size)
    else:
        payload, header = None, None
    n_chunks, n_bytes = mpi_comm.bcast(header, root=root)
    if mpi_comm.rank != root:
        payload = numpy.empty(n_bytes, numpy.uint8)
    for i in range(n_chunks):
        piece = payload[i * max_buf_len:(i + 1) * max_buf_len]
        mpi_comm.Bcast([piece, MPI.BYTE], root=root)
    if mpi_comm.rank == root:
        return obj
    return pickle.loads(payload.tobytes())


def _get_nccl_type_id(dtype):
    """NCCL's id of a float dtype (needs CuPy with NCCL)."""
    from cpuframe.mn import nccl
    if not nccl._available:
        raise RuntimeError('_get_nccl_type_id: NCCL is not available '
                           '(needs CuPy with NCCL)')
    dtype = numpy.dtype(dtype)
    ids = {numpy.dtype(numpy.float16): nccl.NCCL_FLOAT16,
           numpy.dtype(numpy.float32): nccl.NCCL_FLOAT32,
           numpy.dtype(numpy.float64): nccl.NCCL_FLOAT64}
    if dtype not in ids:
        raise ValueError('dtype must be float16, float32, or float64.')
    return ids[dtype]
