"""cpuframe.mn: multi-node training on MPI with ChainerMN 7's API.

``import cpuframe.mn as chainermn``; under ``python -m cpuframe.compat``
(or ``CPUFRAME_AS_CHAINER=1``) ``import chainermn`` gives this package.
Launch with ``mpiexec -n N python train.py``.  mpi4py is imported on first
use (``pip install 'cpuframe[mpi]'``).

Under an MPI launcher with more than one process, an uncaught exception on
any rank aborts the whole job instead of leaving the other ranks hanging
(see :mod:`cpuframe.mn.global_except_hook`;
``CPUFRAME_MN_ABORT_ON_EXCEPTION=0`` turns that off).
"""
from cpuframe.mn import (
    communicators,
    datasets,
    extensions,
    functions,
    global_except_hook,
    iterators,
    links,
    optimizers,
)
from cpuframe.mn.communicators import CommunicatorBase, create_communicator
from cpuframe.mn.datasets import DataSizeError, scatter_dataset, scatter_index
from cpuframe.mn.extensions import (
    create_multi_node_checkpointer,
    create_multi_node_evaluator,
)
from cpuframe.mn.links import MultiNodeChainList
from cpuframe.mn.optimizers import create_multi_node_optimizer

global_except_hook._add_hook_if_enabled()

__all__ = ['CommunicatorBase', 'DataSizeError', 'MultiNodeChainList',
           'communicators', 'create_communicator',
           'create_multi_node_checkpointer', 'create_multi_node_evaluator',
           'create_multi_node_optimizer', 'datasets', 'extensions',
           'functions', 'global_except_hook', 'iterators', 'links',
           'optimizers', 'scatter_dataset', 'scatter_index']
