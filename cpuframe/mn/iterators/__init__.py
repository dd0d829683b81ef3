"""Iterators that give every rank the same batches (``chainermn.iterators``)."""
from cpuframe.mn.iterators.multi_node_iterator import (
    create_multi_node_iterator,
)
from cpuframe.mn.iterators.synchronized_iterator import (
    create_synchronized_iterator,
)

__all__ = ['create_multi_node_iterator', 'create_synchronized_iterator']
