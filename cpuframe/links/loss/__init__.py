"""Loss links: BlackOut, negative sampling, hierarchical softmax, CRF1d."""
from cpuframe.links.loss.black_out import BlackOut
from cpuframe.links.loss.crf1d import CRF1d
from cpuframe.links.loss.hierarchical_softmax import BinaryHierarchicalSoftmax
from cpuframe.links.loss.negative_sampling import NegativeSampling

__all__ = ['BinaryHierarchicalSoftmax', 'BlackOut', 'CRF1d',
           'NegativeSampling']
