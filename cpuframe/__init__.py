"""cpuframe: a define-by-run deep-learning framework with Chainer's API,
fast on CPUs through oneDNN.

``import cpuframe as chainer`` gives a Chainer script the names it expects.
"""
__version__ = '0.1.0'

# ruff: noqa: E402, F401 - the public namespace, assembled after __version__
from cpuframe import (
    backend,
    backends,
    configuration,
    functions,
    gradient_check,
    initializers,
    testing,
    utils,
)
from cpuframe._runtime_info import get_runtime_info, print_runtime_info
from cpuframe.backend import (
    DeviceResident,
    get_array_module,
    get_device,
    using_device,
)
from cpuframe.backends import cuda
from cpuframe.configuration import (
    DebugMode,
    config,
    force_backprop_mode,
    global_config,
    is_debug,
    no_backprop_mode,
    set_debug,
    using_config,
)
from cpuframe.function import Function, FunctionAdapter
from cpuframe.function_hook import FunctionHook, get_function_hooks
from cpuframe.function_node import FunctionNode, grad
from cpuframe.functions.math import basic_math as _basic_math
from cpuframe.link_hook import LinkHook
from cpuframe.variable import (
    Parameter,
    Variable,
    VariableNode,
    as_array,
    as_variable,
)

_basic_math.install_variable_arithmetics()


# Chainer's top-level names that live in higher layers, imported on first use
# so that ``import cpuframe`` stays light and free of import cycles.
_LAZY_MODULES = (
    'compat', 'dataset', 'datasets', 'function_hooks', 'iterators', 'link',
    'link_hooks', 'links', 'optimizer', 'optimizer_hooks', 'optimizers',
    'reporter', 'sequential', 'serializer', 'serializers', 'training',
)
_LAZY_NAMES = {
    'Link': 'link', 'Chain': 'link', 'ChainList': 'link',
    'Sequential': 'sequential',
    'Reporter': 'reporter', 'report': 'reporter', 'report_scope': 'reporter',
    'get_current_reporter': 'reporter', 'Summary': 'reporter',
    'DictSummary': 'reporter',
    'Optimizer': 'optimizer', 'GradientMethod': 'optimizer',
    'UpdateRule': 'optimizer', 'Hyperparameter': 'optimizer',
    'Serializer': 'serializer', 'Deserializer': 'serializer',
    'AbstractSerializer': 'serializer',
    'Initializer': 'initializers',
}


def __getattr__(name):
    import importlib
    if name in _LAZY_MODULES:
        return importlib.import_module('cpuframe.' + name)
    if name in _LAZY_NAMES:
        module = importlib.import_module('cpuframe.' + _LAZY_NAMES[name])
        return getattr(module, name)
    raise AttributeError("module 'cpuframe' has no attribute {!r}".format(name))


def __dir__():
    # dir(cpuframe) and tab completion list the lazily imported names too.
    return sorted(set(globals()) | set(_LAZY_MODULES) | set(_LAZY_NAMES))


def get_dtype(dtype=None):
    """``dtype`` as a NumPy dtype, or ``config.dtype`` when None."""
    import numpy
    return numpy.dtype(config.dtype if dtype is None else dtype)
