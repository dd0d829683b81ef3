"""Thread-local configuration with Chainer's keys and defaults.

``global_config`` holds process-wide values; ``config`` reads the calling
thread's overrides first and falls back to ``global_config``.  Use
``using_config(name, value)`` to change a value for a ``with`` block.
"""
import contextlib
import os
import sys
import threading

import numpy

_USE_IDEEP_VALUES = ('never', 'auto', 'always')


def check_use_ideep(value):
    """``value`` if it is a mode of ``config.use_ideep``, else ValueError.

    As in Chainer, any value may be set; the route choice, which reads it,
    rejects one it cannot act on.
    """
    if value not in _USE_IDEEP_VALUES:
        raise ValueError(
            'config.use_ideep: expected one of {}, got {!r}'.format(
                ', '.join(repr(v) for v in _USE_IDEEP_VALUES), value))
    return value
_USE_CUDNN_VALUES = ('never', 'auto', 'always')


def _validate(name, value):
    """Raise ``ValueError`` for values the framework cannot act on."""
    if name == 'use_cudnn' and value not in _USE_CUDNN_VALUES:
        raise ValueError(
            'config.use_cudnn: expected one of {}, got {!r}'.format(
                ', '.join(repr(v) for v in _USE_CUDNN_VALUES), value))
    if name == 'dtype' and value is not None and \
            not isinstance(value, _MixedDtype):
        dt = numpy.dtype(value)
        if dt.kind != 'f':
            raise ValueError(
                'config.dtype: expected a floating point dtype, got '
                '{!r}'.format(value))


class _MixedDtype:
    """A mixed-precision dtype specifier for ``config.dtype``.

    ``numpy.dtype(spec)`` is its storage dtype (``spec.dtype``); it pickles
    by name, as the module attribute of that name.
    """

    def __init__(self, name, dtype):
        self._name = name
        self.dtype = numpy.dtype(dtype)

    def __repr__(self):
        return "dtype('{}')".format(self._name)

    def __reduce__(self):
        return self._name


#: Chainer's ``mixed16``: float16 computation with float32 where precision
#: matters (links ask ``get_dtype(map_mixed16=numpy.float32)``);
#: ``numpy.dtype(mixed16)`` is float16.
mixed16 = _MixedDtype('mixed16', numpy.float16)

#: cpuframe's bfloat16 mixed mode. The ops with a bfloat16 route
#: (convolution, deconvolution, linear, pooling, relu, tanh, sigmoid, the
#: residual add, concat, batch normalization's data path) read their
#: activations and weights rounded to bfloat16, accumulate in float32 and
#: write bfloat16 activations; batch normalization's statistics, the loss,
#: weight gradients and the optimizer's master weights stay float32
#: (Chainer's ``use_fp32_update()`` without asking). ``numpy.dtype(mixed_bf16)``
#: is float32: NumPy has no bfloat16, so parameters and the arrays a user
#: reads are float32 (an Intel64 activation stored in bfloat16 reports
#: ``storage_dtype == 'bfloat16'`` and converts to float32 exactly). Rules:
#: ``cpuframe._bf16``.
mixed_bf16 = _MixedDtype('mixed_bf16', numpy.float32)

_NAMED_DTYPES = {'mixed16': mixed16, 'mixed_bf16': mixed_bf16}


def _dtype_from_env(name):
    if name in _NAMED_DTYPES:
        return _NAMED_DTYPES[name]
    try:
        return numpy.dtype(name)
    except TypeError:
        raise ValueError(
            'CPUFRAME_DTYPE / CHAINER_DTYPE: expected float16, float32, '
            'float64, mixed16 or mixed_bf16, got {!r}'.format(name)) from None


class GlobalConfig:
    """Process-wide configuration values."""

    def __init__(self):
        # The LocalConfig classes reading through to this object: each keeps
        # a copy of every value as a class attribute (see LocalConfig).
        super().__setattr__('_readers', [])

    def __setattr__(self, name, value):
        _validate(name, value)
        super().__setattr__(name, value)
        for reader in self._readers:
            setattr(reader, name, value)

    def __delattr__(self, name):
        super().__delattr__(name)
        for reader in self._readers:
            if name in vars(reader):
                delattr(reader, name)

    def show(self, file=None):
        """Print every key and its value, sorted by key."""
        file = file or sys.stdout
        for key in sorted(k for k in vars(self) if k != '_readers'):
            file.write('{:<24}{}\n'.format(key, getattr(self, key)))


class LocalConfig(threading.local):
    """Thread-local configuration falling back to a global one.

    A value set on this object (``config.train = False``, ``using_config``)
    is seen by the calling thread only; any other key reads the global
    configuration's value. Reading a key is one attribute look-up, since
    every op reads several: each LocalConfig is an instance of a class of
    its own (made here) whose class attributes mirror the global values
    (``GlobalConfig.__setattr__`` keeps them current), and as a
    ``threading.local`` its instance dictionary is the calling thread's.
    """

    def __new__(cls, global_config):
        reader = type(cls.__name__, (cls,), {
            '__module__': cls.__module__, '_global': global_config})
        for key, value in vars(global_config).items():
            if key != '_readers':
                setattr(reader, key, value)
        global_config._readers.append(reader)
        return super().__new__(reader, global_config)

    def __init__(self, global_config):
        # Called again in each thread that first touches the object (as
        # for every threading.local): there is nothing per thread to set.
        pass

    def __setattr__(self, name, value):
        _validate(name, value)
        super().__setattr__(name, value)

    def show(self, file=None):
        """Print every key visible from this thread and its value."""
        file = file or sys.stdout
        keys = (set(vars(self._global)) - {'_readers'}) | set(vars(self))
        for key in sorted(keys):
            file.write('{:<24}{}\n'.format(key, getattr(self, key)))


def _env_use_ideep():
    for var in ('CPUFRAME_USE_IDEEP', 'CHAINER_USE_IDEEP'):
        value = os.environ.get(var)
        if value:
            if value not in _USE_IDEEP_VALUES:
                raise ValueError(
                    '{}: expected one of {}, got {!r}'.format(
                        var, ', '.join(_USE_IDEEP_VALUES), value))
            return value
    return 'auto'


def _env_flag(name, default):
    value = os.environ.get('CPUFRAME_' + name, os.environ.get('CHAINER_' + name))
    if value is None:
        return default
    return value not in ('0', '', 'false', 'False')


global_config = GlobalConfig()
config = LocalConfig(global_config)

global_config.train = True
global_config.enable_backprop = True
global_config.type_check = _env_flag('TYPE_CHECK', True)
global_config.debug = _env_flag('DEBUG', False)
global_config.use_ideep = _env_use_ideep()
global_config.use_cudnn = os.environ.get('CHAINER_USE_CUDNN', 'auto')
global_config.cudnn_deterministic = _env_flag('CUDNN_DETERMINISTIC', False)
global_config.use_cudnn_tensor_core = 'auto'
global_config.autotune = False
global_config.keep_graph_on_report = _env_flag('KEEP_GRAPH_ON_REPORT', False)
global_config.lazy_grad_sum = _env_flag('LAZY_GRAD_SUM', False)
global_config.use_static_graph = True
global_config.dtype = _dtype_from_env(
    os.environ.get('CPUFRAME_DTYPE', os.environ.get('CHAINER_DTYPE', 'float32')))
global_config.in_recomputing = False
global_config.schedule_func = None
global_config.warn_nondeterministic = False
global_config.compute_mode = None


_MISSING = object()


@contextlib.contextmanager
def using_config(name, value, config=config):
    """Set ``config.<name>`` to ``value`` inside a ``with`` block.

    The previous thread-local value (or its absence) is restored on exit,
    also when the block raises.
    """
    old = config.__dict__.get(name, _MISSING) \
        if isinstance(config, LocalConfig) else getattr(config, name, _MISSING)
    setattr(config, name, value)
    try:
        yield
    finally:
        if old is _MISSING:
            delattr(config, name)
        else:
            setattr(config, name, old)


def no_backprop_mode():
    """Context in which functions build no computational graph."""
    return using_config('enable_backprop', False)


def force_backprop_mode():
    """Context in which functions build the graph even inside no_backprop_mode."""
    return using_config('enable_backprop', True)


def is_debug():
    """Return ``config.debug``."""
    return bool(config.debug)


def set_debug(debug):
    """Set the global debug flag."""
    global_config.debug = debug


class DebugMode:
    """Context manager switching ``config.debug`` (Chainer's DebugMode)."""

    def __init__(self, debug):
        self._cm = using_config('debug', debug)

    def __enter__(self):
        self._cm.__enter__()

    def __exit__(self, *args):
        self._cm.__exit__(*args)
