"""Model links."""
from cpuframe.links.model.classifier import Classifier

__all__ = ['Classifier']
