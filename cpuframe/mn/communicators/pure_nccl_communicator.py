"""ChainerMN's ``communicators.pure_nccl_communicator``."""
from cpuframe.mn import nccl
from cpuframe.mn.communicators.mpi_communicator_base import MpiCommunicatorBase


class PureNcclCommunicator(MpiCommunicatorBase):
    """``create_communicator('pure_nccl')``'s class: needs CuPy with NCCL 2
    (ChainerMN's error without it, as here)."""

    _comm_name = 'pure_nccl'

    def __init__(self, mpi_comm=None):
        if not nccl._available:
            raise RuntimeError('PureNcclCommunicator requires NCCL 2.0+, but '
                               'NCCL is not available.')
        super().__init__(mpi_comm)
