"""ChainerMN's ``communicators.naive_communicator``."""
from cpuframe.mn.communicators.mpi_communicator_base import MpiCommunicatorBase


class NaiveCommunicator(MpiCommunicatorBase):
    """``create_communicator('naive')``'s class: MPI on host arrays."""

    _comm_name = 'naive'
