"""noise functions."""
from cpuframe.functions.noise.dropout import dropout
from cpuframe.functions.noise.gaussian import gaussian
from cpuframe.functions.noise.gumbel_softmax import gumbel_softmax
from cpuframe.functions.noise.simplified_dropconnect import simplified_dropconnect
from cpuframe.functions.noise.zoneout import zoneout

__all__ = ['dropout', 'gaussian', 'gumbel_softmax', 'simplified_dropconnect',
           'zoneout']
