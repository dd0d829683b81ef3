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
    warnings,
)
from cpuframe._backprop import backward
from cpuframe._runtime_info import get_runtime_info, print_runtime_info
from cpuframe._threads import get_num_threads, set_num_threads
from cpuframe.backend import (
    DeviceResident,
    get_array_module,
    get_device,
    using_device,
)
from cpuframe.backends import cuda
from cpuframe.backends.cuda import should_use_cudnn, should_use_cudnn_tensor_core
from cpuframe.configuration import (
    DebugMode,
    config,
    force_backprop_mode,
    global_config,
    is_debug,
    mixed16,
    mixed_bf16,
    no_backprop_mode,
    set_debug,
    using_config,
)
from cpuframe.function import Function, FunctionAdapter
from cpuframe.function_hook import FunctionHook, get_function_hooks
from cpuframe.function_node import FunctionNode, grad
from cpuframe.functions import array
from cpuframe.functions.math import basic_math
from cpuframe.link_hook import LinkHook
from cpuframe.variable import (
    Parameter,
    Variable,
    VariableNode,
    as_array,
    as_variable,
)

basic_math.install_variable_arithmetics()


# Chainer's top-level names that live in higher layers, imported on first use
# so that ``import cpuframe`` stays light and free of import cycles.
_LAZY_MODULES = (
    'compat', 'dataset', 'datasets', 'function_hooks', 'iterators', 'link',
    'link_hooks', 'links', 'optimizer', 'optimizer_hooks', 'optimizers',
    'reporter', 'sequential', 'serializer', 'serializers', 'training',
    'initializer', 'memory_layouts', 'types', 'computational_graph',
    'device_resident', 'distribution', 'distributions', 'graph_optimizations',
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
    'Initializer': 'initializer',
    'Distribution': 'distribution', 'kl_divergence': 'distribution',
    'register_kl': 'distribution', 'cross_entropy': 'distribution',
    'static_graph': 'graph_optimizations.static_graph',
    'static_code': 'graph_optimizations.static_graph_utilities',
}

# Set to True to silence the FutureWarning of experimental APIs
# (cpuframe.utils.experimental).
disable_experimental_feature_warning = False


class _FallbackType:
    """The type of :data:`Fallback`, Chainer's "use the default path"
    sentinel."""

    def __repr__(self):
        return 'Fallback'


Fallback = _FallbackType()


def get_array_types():
    """The array types cpuframe handles: NumPy's, the Intel64 device's
    ``mdarray`` when the native module loads, and CuPy's when present."""
    import numpy
    types = get_cpu_array_types()
    if cuda.cupy is not None:
        types += (cuda.ndarray,)
    return types


def get_cpu_array_types():
    """The array types that live in host memory (NumPy's, and ``mdarray``
    when the native module loads)."""
    import numpy
    from cpuframe.backends import intel64
    if intel64.is_ideep_available():
        return (numpy.ndarray, intel64.mdarray)
    return (numpy.ndarray,)


def is_arrays_compatible(arrays):
    """Whether the arrays (None entries ignored) are all on the CPU or all
    CuPy arrays.  Not a test of whether one object is an array."""
    arrays = [a for a in arrays if a is not None]
    if not arrays:
        return True
    if cuda.is_cupy_array(arrays[0]):
        types = (cuda.ndarray,)
    else:
        types = get_cpu_array_types()
    return all(isinstance(a, types) for a in arrays)


def get_compute_mode():
    """``config.compute_mode``."""
    return config.compute_mode


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


def get_dtype(dtype=None, map_mixed16=None):
    """Resolve a dtype specifier, defaulting to ``config.dtype``.

    ``dtype`` (when not None) is normalized by ``numpy.dtype``; otherwise
    ``config.dtype`` is.  When the specifier is :data:`mixed16` and
    ``map_mixed16`` is given, ``map_mixed16`` is used instead (mixed16
    itself means float16).
    """
    import numpy
    if dtype is None:
        dtype = config.dtype
    if dtype is mixed16 and map_mixed16 is not None:
        dtype = map_mixed16
    return numpy.dtype(dtype)
