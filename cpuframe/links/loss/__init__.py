"""Loss links: negative sampling, binary hierarchical softmax, CRF1d."""
from cpuframe.links.loss.crf1d import CRF1d
from cpuframe.links.loss.hierarchical_softmax import BinaryHierarchicalSoftmax
from cpuframe.links.loss.negative_sampling import NegativeSampling

__all__ = ['BinaryHierarchicalSoftmax', 'CRF1d', 'NegativeSampling']
