"""Communicators: ``create_communicator`` and ``CommunicatorBase``."""
from cpuframe.mn.communicators.communicator_base import CommunicatorBase

# ChainerMN's names for its CPU-capable and host-staged communicators; on
# cpuframe they all are the bucketed MPI communicator.
CPU_COMMUNICATORS = ('naive', 'flat', 'hierarchical', 'two_dimensional',
                     'single_node', 'non_cuda_aware')
_GPU_ONLY = ('pure_nccl',)


def _named_classes():
    from cpuframe.mn.communicators.flat_communicator import FlatCommunicator
    from cpuframe.mn.communicators.naive_communicator import NaiveCommunicator
    return {'naive': NaiveCommunicator, 'flat': FlatCommunicator}


def _cuda_available():
    from cpuframe.backends import cuda
    return cuda.available


def create_communicator(communicator_name=None, mpi_comm=None,
                        allreduce_grad_dtype=None, batched_copy=True,
                        **kwargs):
    """Create a communicator (ChainerMN's ``create_communicator``).

    Args:
        communicator_name: ``'naive'``, ``'flat'``, ``'hierarchical'``,
            ``'two_dimensional'``, ``'single_node'`` or ``'non_cuda_aware'``
            (on cpuframe all run on MPI with bucketed, overlapped gradient
            reduction), or ``'pure_nccl'`` (needs CuPy with NCCL).  ``None``
            picks ``'pure_nccl'`` where CUDA is available and ``'naive'``
            otherwise (ChainerMN's default is always ``'pure_nccl'``).
        mpi_comm: an ``mpi4py`` communicator (``MPI.COMM_WORLD`` by default).
        allreduce_grad_dtype: reduce gradients in this dtype: None (each
            gradient's own), ``numpy.float16``, ``'bfloat16'``,
            ``numpy.float32`` or ``numpy.float64``.
        batched_copy: ChainerMN's option, kept as the communicator's
            ``batched_copy`` (True by default, as in ChainerMN; packing is
            always batched here).
        bucket_bytes: the size of a gradient bucket (default 16 MiB).
    """
    from cpuframe.mn.communicators.mpi_communicator import (
        DEFAULT_BUCKET_BYTES,
        MpiCommunicator,
    )
    bucket_bytes = kwargs.pop('bucket_bytes', DEFAULT_BUCKET_BYTES)
    if kwargs:
        raise TypeError('create_communicator: unexpected keyword arguments {}'
                        .format(sorted(kwargs)))
    name = communicator_name
    if name is None:
        name = 'pure_nccl' if _cuda_available() else 'naive'
    if name in _GPU_ONLY:
        if not _cuda_available():
            raise ValueError(
                "create_communicator: {!r} needs CuPy with NCCL and a CUDA "
                'device, and this machine has none; on CPUs use one of {} '
                "(e.g. create_communicator('naive'))".format(
                    name, ', '.join(repr(n) for n in CPU_COMMUNICATORS)))
    elif name not in CPU_COMMUNICATORS:
        raise ValueError('create_communicator: unrecognized communicator {!r};'
                         ' expected one of {}'.format(
                             name, ', '.join(repr(n) for n in
                                             CPU_COMMUNICATORS + _GPU_ONLY)))
    # ChainerMN's class for the name where cpuframe has one that runs here
    cls = _named_classes().get(name, MpiCommunicator)
    comm = object.__new__(cls)
    MpiCommunicator.__init__(comm, mpi_comm, name=name,
                             allreduce_grad_dtype=allreduce_grad_dtype,
                             bucket_bytes=bucket_bytes)
    comm.batched_copy = batched_copy
    if name == 'single_node' and comm.inter_size != 1:
        raise ValueError("create_communicator: 'single_node' needs every rank "
                         'on one host; this job spans {} hosts'.format(
                             comm.inter_size))
    return comm


__all__ = ['CommunicatorBase', 'create_communicator', 'CPU_COMMUNICATORS']
