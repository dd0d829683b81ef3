"""``print_runtime_info``: the versions a bug report needs."""
import platform
import sys

import numpy


def _onednn_lines():
    from cpuframe import _isa, _native, _threads
    mod = _native.load()
    if mod is None:
        return ['oneDNN:         not available ({})'.format(_native.load_error())]
    return [
        'oneDNN:         {}'.format(mod.onednn_version_string()),
        'oneDNN ISA:     {}'.format(mod.isa()),
        'oneDNN threads: {}'.format(mod.num_threads()),
    ] + _isa.describe(mod) + _threads.describe()


def _bf16_lines():
    from cpuframe import _bf16
    return _bf16.describe()


def _cupy_lines():
    from cpuframe.backends import cuda
    if cuda.cupy is None:
        return ['CuPy:           not available']
    lines = ['CuPy:           {}'.format(cuda.cupy.__version__)]
    lines.append('CUDA devices:   {}'.format(
        cuda._count_devices() if cuda.available else 0))
    return lines


def get_runtime_info():
    """The runtime information as one string."""
    from cpuframe import __version__
    from cpuframe.configuration import config
    lines = [
        'Platform:       {}'.format(platform.platform()),
        'Python:         {}'.format(sys.version.split()[0]),
        'cpuframe:       {}'.format(__version__),
        'NumPy:          {}'.format(numpy.__version__),
    ]
    lines += _onednn_lines()
    lines += _bf16_lines()
    lines += _cupy_lines()
    from cpuframe import function_node
    lines.append('native core:    {}'.format(
        'on (cpuframe._core)' if function_node.native_core() else
        'off (the Python core{})'.format(
            ': ' + function_node._native_core_missing
            if function_node._native_core_missing else '')))
    lines.append('use_ideep:      {}'.format(config.use_ideep))
    lines.append('dtype:          {}'.format(config.dtype))
    return '\n'.join(lines) + '\n'


def print_runtime_info(out=None):
    """Print cpuframe, NumPy, oneDNN (version, ISA, threads) and CuPy info."""
    (out or sys.stdout).write(get_runtime_info())
