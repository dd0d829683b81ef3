"""Links (Chainer's ``chainer.links``, import as L)."""
from cpuframe.links.activation import *  # noqa: F401,F403
from cpuframe.links.connection import *  # noqa: F401,F403
from cpuframe.links.loss import *  # noqa: F401,F403
from cpuframe.links.model import *  # noqa: F401,F403
from cpuframe.links.normalization import *  # noqa: F401,F403
from cpuframe.links.rnn import *  # noqa: F401,F403
from cpuframe.sequential import Sequential  # noqa: F401
