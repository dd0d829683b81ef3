"""ChainerMN's ``communicators.non_cuda_aware_communicator``."""
from cpuframe.mn import nccl
from cpuframe.mn.communicators.mpi_communicator_base import MpiCommunicatorBase


class NonCudaAwareCommunicator(MpiCommunicatorBase):
    """``create_communicator('non_cuda_aware')``'s class. ChainerMN's needs
    NCCL (and raises its error without it, as here); where CuPy has NCCL it
    is cpuframe.mn's MPI communicator staging device arrays on the host."""

    _comm_name = 'non_cuda_aware'

    def __init__(self, mpi_comm=None):
        if not nccl._available:
            raise RuntimeError('NCCL is not available. Please confirm that '
                               'NCCL is enabled in CuPy.')
        super().__init__(mpi_comm)
