"""cpuframe.mn: multi-node training on MPI with ChainerMN 7's API.

``import cpuframe.mn as chainermn``; under ``python -m cpuframe.compat``
(or ``CPUFRAME_AS_CHAINER=1``) ``import chainermn`` gives this package.
Launch with ``mpiexec -n N python train.py``.  mpi4py is imported on first
use (``pip install 'cpuframe[mpi]'``).
"""
from cpuframe.mn import communicators
from cpuframe.mn.communicators import CommunicatorBase, create_communicator

__all__ = ['CommunicatorBase', 'communicators', 'create_communicator']
