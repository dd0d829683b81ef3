"""Activation links."""
from cpuframe.links.activation.maxout import Maxout
from cpuframe.links.activation.prelu import PReLU

__all__ = ['Maxout', 'PReLU']
