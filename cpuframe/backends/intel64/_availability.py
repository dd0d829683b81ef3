"""Whether the intel64 backend can run, and Chainer's questions about it
(``is_ideep_available``, ``check_ideep_available``, ``should_use_ideep``,
``inputs_all_ready``), with the one-time warning for an unbuilt checkout."""
import os
import sys
import threading
import warnings

import numpy

from cpuframe import _native
from cpuframe.configuration import check_use_ideep, config

_pkg = sys.modules[__package__]  # the package: mdarray and the loaded module live there

_SHOULD_USE_LEVELS = ('>=auto', '==always')


def is_ideep_available():
    """True when the oneDNN native module loaded."""
    return _pkg.native() is not None


def unavailable_reason():
    """Why the native module did not load, or ``None`` when it did."""
    return None if _pkg.is_ideep_available() else _native.load_error()


def check_ideep_available():
    """Raise ``RuntimeError`` with the reason when oneDNN is not usable."""
    if not _pkg.is_ideep_available():
        message = ('intel64 backend: the oneDNN native module cpuframe._dnnl '
                   'could not be loaded: {}'.format(_native.load_error()))
        root = None if _native.disabled() else _native.source_tree()
        if root is not None:
            # Say why and what to do, as the 'auto' path's warning does.
            message += (
                '. cpuframe was imported from the source tree at {}, where '
                'the native module is not built: run Python from outside '
                'the checkout to use an installed cpuframe, or build the '
                'checkout with `pip install -e .` (needs a C++17 compiler '
                'and onednn-devel-cpu-gomp==2023.2.0; see '
                'docs/native-build.md)'.format(root))
        raise RuntimeError(message)


class NativeBackendMissingWarning(UserWarning):
    """cpuframe was imported from a source checkout whose native module is
    not built, so ``config.use_ideep='auto'`` runs every op on NumPy.

    Emitted once per process, where 'auto' first needs the backend.
    """


_missing_lock = threading.Lock()


def warn_if_native_missing():
    """Warn once per process when 'auto' falls back to NumPy because cpuframe
    was imported from a source checkout without the native module.

    Called where 'auto' needs the backend and finds it missing, not at
    ``import cpuframe``: a script that never runs a routed op (or runs with
    'never') loses nothing, and importing stays free of loading the native
    module.  Silent when ``CPUFRAME_DISABLE_NATIVE`` chose NumPy and for an
    installed package (``unavailable_reason()`` says why it did not load).
    """
    if _pkg._missing_checked:
        return
    with _missing_lock:
        if _pkg._missing_checked:
            return
        _pkg._missing_checked = True
    if _native.disabled() or _pkg.native() is not None:
        return
    root = _native.source_tree()
    if root is None:
        return
    warnings.warn(
        'cpuframe was imported from the source tree at {}, where its native '
        'module cpuframe._dnnl is not built ({}); config.use_ideep=\'auto\' '
        'therefore runs every op on NumPy, many times slower. Run Python from '
        'outside the checkout to use the installed cpuframe, or build the '
        'checkout with `pip install -e .` (or install it with `pip install '
        '.`). CPUFRAME_DISABLE_NATIVE=1 chooses the NumPy path on purpose and '
        'silences this warning.'.format(root, _native.load_error()),
        NativeBackendMissingWarning, stacklevel=_caller_outside_package())


def _caller_outside_package():
    """The ``stacklevel`` of the first caller outside cpuframe: the warning
    then names the user's line, not the machinery's."""
    package = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    frame = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(
            package + os.sep):
        frame = frame.f_back
        level += 1
    return level


def should_use_ideep(level):
    """Chainer's check: ``level`` is ``'>=auto'`` or ``'==always'``."""
    if level not in _SHOULD_USE_LEVELS:
        raise ValueError(
            'should_use_ideep: expected level in {}, got {!r}'.format(
                _SHOULD_USE_LEVELS, level))
    check_use_ideep(config.use_ideep)
    if not _pkg.is_ideep_available():
        if level == '>=auto' and config.use_ideep == 'auto':
            _pkg.warn_if_native_missing()
        return False
    if level == '>=auto':
        return config.use_ideep in ('auto', 'always')
    return config.use_ideep == 'always'


def inputs_all_ready(inputs, supported_ndim=(2, 4)):
    """True when every input is an array oneDNN can take as it is.

    ``None`` entries are ignored. An input qualifies when it is a float32
    NumPy array (or native tensor) whose ndim is in ``supported_ndim``.
    """
    if not _pkg.is_ideep_available():
        return False
    for x in inputs:
        if x is None:
            continue
        if hasattr(x, 'array') and not _pkg.is_native_array(x):
            x = x.array
        if not (isinstance(x, numpy.ndarray) or _pkg.is_native_array(x)):
            return False
        if x.dtype != numpy.float32 or x.ndim not in supported_ndim:
            return False
    return True
