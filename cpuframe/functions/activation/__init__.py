"""activation functions."""
from cpuframe.functions.activation.sigmoid import sigmoid
from cpuframe.functions.activation.tanh import tanh

__all__ = ['sigmoid', 'tanh']
