"""cpuframe: a define-by-run deep-learning framework with Chainer's API,
fast on CPUs through oneDNN.

``import cpuframe as chainer`` gives a Chainer script the names it expects.
"""
__version__ = '0.1.0'

from cpuframe import configuration  # noqa: E402
from cpuframe.configuration import (  # noqa: E402,F401
    DebugMode, config, force_backprop_mode, global_config, is_debug,
    no_backprop_mode, set_debug, using_config)
from cpuframe import backend, backends  # noqa: E402,F401
from cpuframe.backend import (  # noqa: E402,F401
    DeviceResident, get_array_module, get_device, using_device)
from cpuframe.backends import cuda  # noqa: E402,F401
from cpuframe.variable import (  # noqa: E402,F401
    Parameter, Variable, VariableNode, as_array, as_variable)
from cpuframe.function_node import FunctionNode, grad  # noqa: E402,F401
from cpuframe.function import Function, FunctionAdapter  # noqa: E402,F401
from cpuframe import utils  # noqa: E402,F401
from cpuframe import initializers  # noqa: E402,F401
from cpuframe import functions  # noqa: E402,F401
from cpuframe import gradient_check  # noqa: E402,F401
from cpuframe import testing  # noqa: E402,F401
from cpuframe._runtime_info import (  # noqa: E402,F401
    get_runtime_info, print_runtime_info)
from cpuframe.functions.math import basic_math as _basic_math  # noqa: E402

_basic_math.install_variable_arithmetics()


def get_dtype(dtype=None):
    """``dtype`` as a NumPy dtype, or ``config.dtype`` when None."""
    import numpy
    return numpy.dtype(config.dtype if dtype is None else dtype)
