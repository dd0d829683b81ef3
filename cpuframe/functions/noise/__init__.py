"""noise functions."""
from cpuframe.functions.noise.dropout import dropout
from cpuframe.functions.noise.gaussian import gaussian

__all__ = ['dropout', 'gaussian']
