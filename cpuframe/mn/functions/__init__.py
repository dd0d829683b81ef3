"""Differentiable communication (ChainerMN's ``chainermn.functions``)."""
from cpuframe.mn.functions.batch_normalization import (  # NOQA
    MultiNodeBatchNormalizationFunction,
    multi_node_batch_normalization,
)
from cpuframe.mn.functions.collective_communication import (  # NOQA
    allgather,
    alltoall,
    bcast,
    gather,
    scatter,
)
from cpuframe.mn.functions.point_to_point_communication import (  # NOQA
    recv,
    send,
)
from cpuframe.mn.functions.pseudo_connect import pseudo_connect  # NOQA
