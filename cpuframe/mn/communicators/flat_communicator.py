"""ChainerMN's ``communicators.flat_communicator``."""
from cpuframe.mn.communicators.mpi_communicator_base import MpiCommunicatorBase


class FlatCommunicator(MpiCommunicatorBase):
    """``create_communicator('flat')``'s class. In ChainerMN it packs the
    gradients into one CUDA buffer; cpuframe.mn's MPI communicator packs
    them into buckets on the host, so here it runs on CPUs too."""

    _comm_name = 'flat'
