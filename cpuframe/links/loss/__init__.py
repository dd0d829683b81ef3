"""Loss links: negative sampling and binary hierarchical softmax."""
from cpuframe.links.loss.hierarchical_softmax import BinaryHierarchicalSoftmax
from cpuframe.links.loss.negative_sampling import NegativeSampling

__all__ = ['BinaryHierarchicalSoftmax', 'NegativeSampling']
