"""cpuframe.mn: multi-node training on MPI with ChainerMN 7's API.

``import cpuframe.mn as chainermn``; under ``python -m cpuframe.compat``
(or ``CPUFRAME_AS_CHAINER=1``) ``import chainermn`` gives this package.
Launch with ``mpiexec -n N python train.py``.  mpi4py is imported on first
use (``pip install 'cpuframe[mpi]'``).
"""
from cpuframe.mn import communicators, optimizers
from cpuframe.mn.communicators import CommunicatorBase, create_communicator
from cpuframe.mn.optimizers import create_multi_node_optimizer
# Model parallelism and multi-node batch normalization (mn-model).
from cpuframe.mn import functions, links  # NOQA
from cpuframe.mn.links import MultiNodeChainList  # NOQA

__all__ = ['CommunicatorBase', 'communicators', 'create_communicator',
           'create_multi_node_optimizer', 'optimizers']
