"""activation functions."""
from cpuframe.functions.activation.clipped_relu import clipped_relu
from cpuframe.functions.activation.crelu import crelu
from cpuframe.functions.activation.elu import elu
from cpuframe.functions.activation.hard_sigmoid import hard_sigmoid
from cpuframe.functions.activation.leaky_relu import leaky_relu
from cpuframe.functions.activation.log_softmax import log_softmax
from cpuframe.functions.activation.lstm import lstm
from cpuframe.functions.activation.maxout import maxout
from cpuframe.functions.activation.prelu import prelu
from cpuframe.functions.activation.relu import relu
from cpuframe.functions.activation.relu6 import relu6
from cpuframe.functions.activation.rrelu import rrelu
from cpuframe.functions.activation.selu import selu
from cpuframe.functions.activation.sigmoid import sigmoid
from cpuframe.functions.activation.slstm import slstm
from cpuframe.functions.activation.softmax import softmax
from cpuframe.functions.activation.softplus import softplus
from cpuframe.functions.activation.swish import swish
from cpuframe.functions.activation.tanh import tanh

__all__ = ['clipped_relu', 'crelu', 'elu', 'hard_sigmoid', 'leaky_relu',
           'log_softmax', 'lstm', 'maxout', 'prelu', 'relu', 'selu',
           'sigmoid', 'slstm', 'softmax', 'softplus', 'swish', 'tanh',
           'rrelu', 'relu6']
