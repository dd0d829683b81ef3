"""Activation links."""
from cpuframe.links.activation.maxout import Maxout
from cpuframe.links.activation.prelu import PReLU
from cpuframe.links.activation.simplified_dropconnect import (
    SimplifiedDropconnect,
)
from cpuframe.links.activation.swish import Swish

__all__ = ['Maxout', 'PReLU', 'SimplifiedDropconnect', 'Swish']
