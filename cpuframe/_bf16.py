"""The bfloat16 mixed mode (``config.dtype = cpuframe.mixed_bf16``).

One rule, declared per op class and applied in ``FunctionNode`` for both
routes: an op with a bf16 route reads the inputs it declares rounded to
bfloat16 (round to nearest even), accumulates in float32 and writes the
outputs it declares rounded to bfloat16.

- ``bf16_inputs``: activation inputs. The intel64 route converts them to
  bf16-stored mdarrays before the native call (one routed op's bf16 output
  is the next one's input as it is: no conversion between two routed ops).
- ``bf16_weights``: inputs the oneDNN primitive converts itself (a float32
  master weight is reordered straight into the bf16 layout it wants).
- ``bf16_outputs``: outputs stored in bf16 on the intel64 route (they
  follow the inputs' storage there); the NumPy path rounds them.

Either list may be ``'all'``. Everything undeclared (batch normalization's
statistics, the loss, weight gradients) stays float32, and so do the
parameters the optimizer updates (Chainer's ``use_fp32_update()``).

The NumPy path is the reference: it rounds with ml_dtypes' ``bfloat16``
NumPy dtype (kept by the JAX team, the one NumPy bfloat16 with exact
round-to-nearest-even and NaN/inf handling; a conversion
``astype(bfloat16).astype(float32)`` per declared array), flushes float32
subnormals to zero as the CPU's conversion does, and computes in float32,
so it differs from oneDNN only by float32 summation order.

Where the native module is loaded but this CPU has no bf16 primitives
(AVX2: oneDNN 3.2 has none), the mode computes in float32 on both routes,
with one ``MixedBF16FallbackWarning``.
"""
import threading
import warnings

import numpy

from cpuframe.configuration import config, mixed_bf16

_NATIVE_ISAS = ('avx512_core_bf16', 'avx512_core_fp16', 'avx512_core_amx',
                'avx512_core_amx_fp16')


class MixedBF16FallbackWarning(UserWarning):
    """``config.dtype`` is ``mixed_bf16`` but this CPU has no bfloat16
    primitives in oneDNN (e.g. an AVX2 machine): every op computes in
    float32 instead. Emitted once per process."""


_lock = threading.Lock()
_support = None
_warned = False


def support():
    """What the mixed_bf16 mode runs on this machine, as a dict.

    ``mode``: 'native' (the CPU has bf16 dot products: avx512_core_bf16 or
    AMX), 'emulated' (plain AVX-512: oneDNN emulates bf16, correct but
    slower than float32), 'float32 fallback' (no bf16 primitives: the mode
    computes in float32) or 'numpy reference' (no native module: the NumPy
    path rounds). ``isa``: oneDNN's ISA; ``amx``: whether AMX tiles run it.
    """
    global _support
    if _support is not None:
        return dict(_support)
    with _lock:
        if _support is None:
            _support = _probe()
    return dict(_support)


def _probe():
    from cpuframe.backends import intel64
    if not intel64.is_ideep_available():
        return {'mode': 'numpy reference', 'isa': None, 'amx': False,
                'native': False}
    native = intel64.native()
    isa = native.isa()
    try:
        x = native.to_bfloat16(numpy.ones((1, 16, 4, 4), numpy.float32))
        w = numpy.ones((16, 16, 3, 3), numpy.float32)
        y = native.convolution_forward(x, w, None, [1, 1], [1, 1], [1, 1],
                                       [1, 1])
        ok = y.storage_dtype == 'bfloat16' and \
            float(numpy.asarray(y)[0, 0, 1, 1]) == 144.0
    except Exception:  # no bf16 primitive on this ISA: oneDNN refuses it
        ok = False
    if not ok:
        mode = 'float32 fallback'
    elif isa in _NATIVE_ISAS:
        mode = 'native'
    else:
        mode = 'emulated'
    return {'mode': mode, 'isa': isa, 'amx': ok and 'amx' in isa,
            'native': mode == 'native'}


def requested():
    """Whether ``config.dtype`` asks for the mixed_bf16 mode."""
    return config.dtype is mixed_bf16


def active():
    """Whether ops round to bf16 now: the mode is asked for and this machine
    is not in float32 fallback (which warns once, here)."""
    if config.dtype is not mixed_bf16:
        return False
    mode = (_support or support())['mode']  # (no copy per op once probed)
    if mode != 'float32 fallback':
        return True
    _warn_fallback()
    return False


def _warn_fallback():
    global _warned
    if _warned:
        return
    with _lock:
        if _warned:
            return
        _warned = True
    warnings.warn(
        'config.dtype is mixed_bf16, but oneDNN has no bfloat16 primitives '
        'on this CPU (ISA {}): every op computes in float32 instead'.format(
            support()['isa']), MixedBF16FallbackWarning, stacklevel=4)


def _indexes(declared, n):
    if declared == 'all':
        return range(n)
    return [i for i in declared if i < n]


_TINY = numpy.finfo(numpy.float32).tiny


def round_array(x):
    """``x`` rounded to bfloat16 values (to nearest even), in its dtype.

    NumPy float32/float64 arrays only; anything else (None, integer arrays,
    CuPy arrays: the mode is a CPU mode) is returned as it is.
    """
    import ml_dtypes
    if isinstance(x, numpy.ndarray) and x.dtype.kind == 'f' and \
            x.dtype.itemsize >= 4:
        r = x.astype(ml_dtypes.bfloat16).astype(x.dtype)
        # As the CPU converts (VCVTNEPS2BF16 and oneDNN's emulation of it):
        # float32 subnormals become zero of their sign.
        sub = numpy.abs(r) < _TINY
        if sub.any():
            r = numpy.where(sub, numpy.copysign(0, r), r).astype(x.dtype)
        return r
    return x


def round_inputs(node, in_data):
    """The NumPy path's inputs: the declared ones rounded."""
    idx = set(_indexes(node.bf16_inputs, len(in_data))) | \
        set(_indexes(node.bf16_weights, len(in_data)))
    if not idx:
        return in_data
    return tuple(round_array(x) if i in idx else x
                 for i, x in enumerate(in_data))


def round_outputs(node, outputs):
    """The NumPy path's outputs: the declared ones rounded."""
    idx = set(_indexes(node.bf16_outputs, len(outputs)))
    if not idx or not isinstance(outputs, tuple):
        return outputs
    return tuple(round_array(y) if i in idx else y
                 for i, y in enumerate(outputs))


def to_bf16_inputs(node, in_data):
    """The intel64 route's inputs: declared activations stored as bf16."""
    from cpuframe.backends import intel64
    idx = _indexes(node.bf16_inputs, len(in_data))
    if not idx:
        return in_data
    native = intel64.native()
    out = list(in_data)
    for i in idx:
        x = out[i]
        if x is not None and (intel64.is_native_array(x) or (
                isinstance(x, numpy.ndarray) and x.dtype == numpy.float32)):
            out[i] = native.to_bfloat16(x)
    return tuple(out)


def describe():
    """Lines for ``print_runtime_info``."""
    s = support()
    mode = s['mode']
    text = {
        'native': 'native (bf16 dot products{})'.format(
            ', AMX tiles' if s['amx'] else ''),
        'emulated': 'emulated by oneDNN on AVX-512 (correct, slower than '
                    'float32)',
        'float32 fallback': 'none on this CPU: mixed_bf16 computes in '
                            'float32 (one warning)',
        'numpy reference': 'no native module: the NumPy path rounds to '
                           'bf16 (reference speed)',
    }[mode]
    return ['bfloat16:       {}'.format(text)]
