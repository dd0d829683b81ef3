"""Trainer extensions for multi-node training (``chainermn.extensions``)."""
from cpuframe.mn.extensions._multi_node_snapshot import multi_node_snapshot
from cpuframe.mn.extensions.allreduce_persistent import AllreducePersistent
from cpuframe.mn.extensions.checkpoint import create_multi_node_checkpointer
from cpuframe.mn.extensions.multi_node_early_stopping_trigger import (
    MultiNodeEarlyStoppingTrigger,
)
from cpuframe.mn.extensions.multi_node_evaluator import (
    GenericMultiNodeEvaluator,
    create_multi_node_evaluator,
)
from cpuframe.mn.extensions.observation_aggregator import (
    ObservationAggregator,
)

__all__ = ['AllreducePersistent', 'GenericMultiNodeEvaluator',
           'MultiNodeEarlyStoppingTrigger', 'ObservationAggregator',
           'create_multi_node_checkpointer', 'create_multi_node_evaluator',
           'multi_node_snapshot']
