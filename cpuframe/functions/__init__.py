"""Differentiable functions, Chainer's ``chainer.functions`` (import as F).

Each family package lists its public names in ``__all__``; this module
re-exports them all.
"""
from cpuframe.functions.activation import *  # noqa: F401,F403
from cpuframe.functions.array import *  # noqa: F401,F403
from cpuframe.functions.connection import *  # noqa: F401,F403
from cpuframe.functions.evaluation import *  # noqa: F401,F403
from cpuframe.functions.loss import *  # noqa: F401,F403
from cpuframe.functions.math import *  # noqa: F401,F403
from cpuframe.functions.noise import *  # noqa: F401,F403
from cpuframe.functions.normalization import *  # noqa: F401,F403
from cpuframe.functions.pooling import *  # noqa: F401,F403
from cpuframe.functions.rnn import *  # noqa: F401,F403
from cpuframe.functions.util import *  # noqa: F401,F403
