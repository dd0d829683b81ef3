"""ChainerMN's ``communicators.mpi_communicator_base``."""
from cpuframe.mn.communicators.mpi_communicator import MpiCommunicator


class MpiCommunicatorBase(MpiCommunicator):
    """The base of the MPI communicators, for subclasses (ChainerMN's):
    ``MpiCommunicatorBase(mpi_comm)`` has every collective of cpuframe.mn's
    MPI communicator; a subclass may override e.g.
    ``multi_node_mean_grad``. ``batched_copy`` is False when constructed
    directly (``create_communicator`` sets it, as in ChainerMN)."""

    _comm_name = 'mpi'

    def __init__(self, mpi_comm=None):
        super().__init__(mpi_comm, name=self._comm_name)
