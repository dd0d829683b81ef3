"""The instruction set the intel64 backend runs on, and how to limit it.

Two kinds of native code run on '@intel64': oneDNN's primitives (which pick
their ISA when libdnnl loads, limited by ``ONEDNN_MAX_CPU_ISA``) and
cpuframe's own vector kernels (LSTM gate passes, the fused softmax cross
entropy; ``csrc/simd``), built for AVX-512, AVX2 + FMA and plain scalar code
and chosen at run time.

``CPUFRAME_MAX_CPU_ISA`` (``avx512``, ``avx2`` or ``scalar``) limits both at
once, for tests and benchmarks on a machine with a bigger ISA than the users'
ones: ``apply()`` (before libdnnl loads) sets ``ONEDNN_MAX_CPU_ISA`` to match
unless the user set it, and ``configure(module)`` (after) lowers the kernels.
``ONEDNN_MAX_CPU_ISA`` alone limits cpuframe's kernels too (AVX2 -> ``avx2``,
SSE41 or AVX -> ``scalar``).
"""

from __future__ import annotations

import os
import warnings

VAR = 'CPUFRAME_MAX_CPU_ISA'
ONEDNN_VAR = 'ONEDNN_MAX_CPU_ISA'
ORDER = ('scalar', 'avx2', 'avx512')
# What ONEDNN_MAX_CPU_ISA is set to for each CPUFRAME_MAX_CPU_ISA
# (None: oneDNN's default, every ISA the CPU has).
_TO_ONEDNN = {'scalar': 'SSE41', 'avx2': 'AVX2', 'avx512': None}

_source = 'the CPU'


def _ours(environ, warn=False) -> str | None:
    """CPUFRAME_MAX_CPU_ISA lower-cased, or None when unset or not valid."""
    value = environ.get(VAR, '').strip()
    if not value:
        return None
    name = value.lower()
    if name not in ORDER:
        if not warn:
            return None
        warnings.warn(
            '{}: expected one of {}, got {!r}; ignored (the CPU\'s own ISA '
            'is used)'.format(VAR, ', '.join(repr(o) for o in reversed(ORDER)),
                              value),
            RuntimeWarning, stacklevel=3)
        return None
    return name


def from_onednn(value: str) -> str | None:
    """The kernel ISA matching an ``ONEDNN_MAX_CPU_ISA`` value, or None."""
    v = value.strip().upper()
    if v in ('ALL', 'DEFAULT') or v.startswith('AVX512'):
        return 'avx512'
    if v.startswith('AVX2'):
        return 'avx2'
    if v in ('SSE41', 'AVX'):
        return 'scalar'
    return None


def apply(environ=None) -> None:
    """Before libdnnl loads: pass CPUFRAME_MAX_CPU_ISA on to oneDNN."""
    environ = os.environ if environ is None else environ
    ours = _ours(environ, warn=True)
    if ours is not None and not environ.get(ONEDNN_VAR):
        onednn = _TO_ONEDNN[ours]
        if onednn is not None:
            environ[ONEDNN_VAR] = onednn


def cap(environ=None) -> tuple[str | None, str]:
    """The kernel ISA the environment asks for (None: no limit) and why."""
    environ = os.environ if environ is None else environ
    ours = _ours(environ)
    if ours is not None:
        return ours, '{}={}'.format(VAR, environ[VAR].strip())
    onednn = environ.get(ONEDNN_VAR, '')
    limit = from_onednn(onednn) if onednn else None
    if limit is not None:
        return limit, '{}={}'.format(ONEDNN_VAR, onednn.strip())
    return None, 'the CPU'


def configure(module, environ=None) -> None:
    """After the native module loads: lower its kernels as the environment asks."""
    global _source
    limit, why = cap(environ)
    supported = module.kernel_isa_supported()
    # A limit at the CPU's own ISA is met exactly: it is still the reason
    # (an AVX2 CPU asked for avx2); only a limit above it is moot.
    if limit is None or ORDER.index(limit) > ORDER.index(supported):
        _source = ('the CPU' if limit is None
                   else 'the CPU ({} asks for more)'.format(why))
        return
    module.set_kernel_isa(limit)
    _source = why


def describe(module) -> list[str]:
    """print_runtime_info's line on cpuframe's own kernels."""
    return ['Kernel ISA:     {} (from {}; the CPU supports {})'.format(
        module.kernel_isa(), _source, module.kernel_isa_supported())]
