"""cpuframe.mn: multi-node training on MPI with ChainerMN 7's API.

``import cpuframe.mn as chainermn``; under ``python -m cpuframe.compat``
(or ``CPUFRAME_AS_CHAINER=1``) ``import chainermn`` gives this package.
Launch with ``mpiexec -n N python train.py``.  mpi4py is imported on first
use (``pip install 'cpuframe[mpi]'``).
"""
from cpuframe.mn import communicators, functions, links, optimizers
from cpuframe.mn.communicators import CommunicatorBase, create_communicator
from cpuframe.mn.links import MultiNodeChainList
from cpuframe.mn.optimizers import create_multi_node_optimizer

__all__ = ['CommunicatorBase', 'MultiNodeChainList', 'communicators',
           'create_communicator', 'create_multi_node_optimizer', 'functions',
           'links', 'optimizers']
