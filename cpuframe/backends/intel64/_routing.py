"""What the FunctionNode machinery asks before it routes a call to oneDNN:
the input checks of ``intel64_supports`` (float32, geometry, NaN and range
checks), the 'auto' size thresholds of ``intel64_profitable`` with the
measurements that set them, and whether an output may be deferred."""
import os
import sys

import numpy

from cpuframe.configuration import config

_pkg = sys.modules[__package__]  # the package: mdarray and the loaded module live there
_ndarray = numpy.ndarray

# CPUFRAME_INTEL64_DEFER=0 computes every convolution output at once (no
# conv + relu fusion); for A/B measurements.
_DEFER = os.environ.get('CPUFRAME_INTEL64_DEFER', '1') != '0'


def may_defer(inputs):
    """Whether an op may return its output before computing it (see
    ``cpuframe._temporaries.claimable_by_relu``): only on the device (every
    input an mdarray, so every later write to them computes deferred values
    first) and not in debug mode."""
    if not _DEFER or config.debug:
        return False
    return all(x is None or _pkg.is_native_array(x) for x in inputs)


def owns_buffer(array):
    """True for an mdarray that alone holds its buffer (no view, no NumPy
    memory under it): the condition, besides nothing else referring to the
    object, for overwriting it in place."""
    return _pkg.is_native_array(array) and _pkg.native().owns_buffer(array)


def all_float32(inputs):
    """True when every non-None input is a float32 ndarray or an _pkg.mdarray."""
    for x in inputs:
        if type(x) is _ndarray:
            # (NumPy's float32 dtype is one object; another float32 dtype,
            # e.g. with metadata, is still compared)
            dtype = x.dtype
            if dtype is _FLOAT32 or dtype == _FLOAT32:
                continue
            return False
        if x is None or _pkg.is_native_array(x):
            continue
        if not isinstance(x, numpy.ndarray) or x.dtype != numpy.float32:
            return False
    return True


_FLOAT32 = numpy.dtype(numpy.float32)


def any_native(inputs):
    """True when some input lives on the Intel64 device."""
    tensor_type = _pkg.mdarray
    for x in inputs:
        # (NumPy arrays first: before the module loads, ``isinstance`` with
        # the placeholder type runs Python code)
        if type(x) is not _ndarray and isinstance(x, tensor_type):
            return True
    return False


def has_nan(x):
    """Whether the float32 array or mdarray ``x`` holds a NaN.

    For routes whose oneDNN kernel drops NaN where the NumPy path keeps it
    (max pooling): they decline such inputs in ``intel64_supports``. One
    read of the array, no copy.
    """
    if _pkg.is_native_array(x):
        return bool(_pkg.native().has_nan(x))
    return x.size > 0 and bool(numpy.isnan(x.min()))


_FLOAT32_MAX = float(numpy.finfo(numpy.float32).max)


def all_within(x, low=-_FLOAT32_MAX, high=_FLOAT32_MAX):
    """Whether every value of the float32 array or mdarray ``x`` lies in
    ``[low, high]`` (a NaN never does; the defaults: no NaN, no infinity).

    For routes whose oneDNN kernel treats such values otherwise than the
    NumPy path: they decline those inputs in ``intel64_supports``
    (convolutions skip the zero padding that the NumPy path multiplies,
    ``0 * inf = NaN`` there; max pooling starts from the lowest float, not
    -inf). One read of the array, no copy.
    """
    return bool(_pkg.native().all_within(x, low, high))


def finite_for_bf16(arrays):
    """Whether these arrays (None skipped) may take a bfloat16 convolution
    route: always outside the mixed_bf16 mode (one attribute read); in it,
    where oneDNN computes in bf16, only arrays free of inf and NaN.

    oneDNN's bf16 convolution kernels (AMX tiles) spread a non-finite value
    beyond the outputs it reaches: an inf in x gave NaN at outputs whose
    window does not hold it, an inf or NaN in W extra NaN in gx, where the
    float32 route and the mode's NumPy path are right. Such inputs take the
    NumPy path of the mode (one read of each array; cached per version for
    mdarrays, so a weight is read once per update).
    """
    from cpuframe import _bf16
    if not _bf16.active():
        return True
    return all(a is None or all_within(a) for a in arrays)


# Strides, pads and dilations from here on take the NumPy path: oneDNN creates
# no primitive for some (stride 2**31 fails), and a window option this large
# only ever meets mostly padding; 2**20 leaves every real case routed.
_MAX_WINDOW_OPTION = 1 << 20


def geometry_supported(arrays, options=()):
    """Whether oneDNN creates a primitive for these arrays and window options.

    Every array (x, W, gy ...; None skipped) or shape tuple (a kernel size)
    must have no zero-size axis (oneDNN has no primitive for empty tensors
    or kernels, where the NumPy path computes the empty or zero result),
    and every option (stride, pad, dilation values) must lie below 2**20.
    """
    for a in arrays:
        if a is not None and 0 in (a if isinstance(a, tuple) else a.shape):
            return False
    return all(0 <= int(o) < _MAX_WINDOW_OPTION for o in options)


def large_enough(x, threshold):
    """True when ``x`` (an array or shape) has at least ``threshold`` elements.

    The usual 'auto' test: below some size the call overhead of a primitive
    outweighs its speed.
    """
    size = x.size if hasattr(x, 'size') else int(numpy.prod(x))
    return size >= threshold


# 'auto' routes an op to oneDNN from this size on (elements of its first
# input unless said otherwise); below it the call overhead of a primitive
# outweighs its speed, and the call takes the NumPy path. That holds for
# arrays on the Intel64 device too (``intel64_profitable_on_device``, the
# ``*_on_device`` entries where its rule differs): the NumPy path reads
# their plain buffers without a copy and returns NumPy arrays, as for an
# op without a route; 'always' takes every supported route. (Session 2
# measured sending only the small element-wise ops of device arrays to NumPy
# a loss, 1.2-1.6x slower MLP steps: their layers still ran on oneDNN, and
# oneDNN's OpenMP team and NumPy's BLAS threads waited on each other at
# every op; with the layers' own rule a small model runs on NumPy whole.)
# Each entry with the measurement that set it.
AUTO_MIN = {
    # input elements. Measured fwd+bwd 2x2 pooling of NumPy arrays in a
    # step that also runs a NumPy matmul (OpenBLAS's threads awake), Zen 3,
    # 2 threads, medians: oneDNN / NumPy 8K elements 1619 / 578 us, 131K
    # 4485 / 1121, 524K 5085 / 2361, 3.2M 15160 / 19227 (average pooling
    # alike): below ~2M elements the OpenMP team's start and the BLAS
    # threads cost more than the pooling
    'max_pooling': 1 << 21,
    'average_pooling': 1 << 21,
    # below 64K elements NumPy is as fast as a primitive call
    'leaky_relu': 1 << 16,
    'elu': 1 << 16,
    # NumPy's single-threaded maximum wins below: oneDNN measured 0.6x its
    # speed at 32K elements, 1.3x at 128K, 1.65x at 512K, forward + backward
    'relu': 1 << 17,
    # NumPy's own SIMD sigmoid and tanh are fast; oneDNN wins by its
    # threads on large arrays only
    'sigmoid': 1 << 20,
    'tanh': 1 << 20,
    # elements of x
    'batch_normalization': 1 << 15,
    'local_response_normalization': 1 << 16,
    # our fused two-pass kernel (csrc/softmax_xent.cpp: one thread below
    # 32K elements, no primitive, no OpenMP team) against NumPy's dozen
    # calls. Measured fwd+bwd of NumPy scores, Zen 3 (2 vCPU), best of 8
    # interleaved blocks, kernel / NumPy: 64x10 1.00, 128x10 0.89, 16x100
    # 1.04, 32x100 1.01, 2000x2 0.67, 512x10 0.90, 64x100 0.86, 8x1000
    # 1.00, 1000x10 0.72, 128x1000 0.50, 64x10000 0.36: from 4K elements
    # it is never slower
    'softmax_cross_entropy': 1 << 12,
    # multiply-adds of a (de)convolution (divided by the stride product).
    # Measured fwd+bwd on a Zen 3 (2 vCPU): 74K MACs (16x1x8x8, 8 filters
    # 3x3) oneDNN 1.11x NumPy's time, 4.7M MACs 0.68x, 38M 0.43x; a small
    # convnet's step also waits on the team's barriers whenever another
    # process holds a core (3x NumPy's step seen with 16K)
    'convolution': 1 << 20,
    # multiply-adds of a fully connected layer on device arrays (NumPy
    # arrays never take the route: see linear._profitable). Measured fwd+bwd
    # on a Zen 3 (2 vCPU), oneDNN / NumPy's BLAS on views of the buffers,
    # best of 15, two runs: 32x64x64 (131K) 256-293 / 196-198 us,
    # 100x100x100 (1M) 363-404 / 324-330, 64x128x128 (1M) 380-401 /
    # 335-344, 100x256x256 (6.6M) 605-651 / 744-901, 100x784x100 (7.8M)
    # 552-694 / 852-969: oneDNN wins from ~2M alone. Inside a step whose
    # other layers are small it does not (oneDNN's OpenMP team and NumPy's
    # BLAS wait on each other): the 784-100-100-10 MLP's SGD step, batch
    # 100, interleaved in one process, best of 30 blocks: threshold 2M
    # (first layer on oneDNN) 1.31x the NumPy path's time, 16M 1.09x
    'linear_on_device': 1 << 24,
    # elements of a sum of device arrays (NumPy arrays never take the
    # route): fwd+bwd 32x32 oneDNN 100-134 / NumPy on views 94-166 us, 1M
    # 1916-1986 / 1633-1820, 4M 7461-8334 / 11972-12841
    'add_on_device': 1 << 20,
    # elements of a concatenation's inputs on the device (NumPy arrays never
    # take the route): fwd+bwd of two 32x32 oneDNN 174-188 / NumPy on views
    # 106-111 us, two 64x1024 267-284 / 760-772
    'concat_on_device': 1 << 14,
    # elements of a weight of the fused L.LSTM step on NumPy arrays whose
    # gradient's sum so far (the engine's own array) the step's backward
    # adds into in place (LSTMStep._accumulates_into), instead of the
    # engine's addition after the step's array backward (which takes no
    # gradient node on Variables). Measured 35 steps at batch 20, fwd+bwd,
    # Zen 4 (2 vCPU), best of 12, in place / summed: 4K elements (32
    # units) 1.055, 16K 0.998, 65K 0.983, 262K 0.947, 1.69M (PTB's 650
    # units) 0.862
    'lstm_numpy_accumulate': 1 << 16,
}


def auto_profitable(op, x):
    """'auto''s size rule for ``op`` (a key of ``AUTO_MIN``): ``x`` (an
    array, a shape, or a count such as a convolution's multiply-adds)
    reaches its threshold."""
    if isinstance(x, int):
        return x >= AUTO_MIN[op]
    try:  # (an array: ``large_enough`` inline, asked per op under 'auto')
        return x.size >= AUTO_MIN[op]
    except AttributeError:
        return large_enough(x, AUTO_MIN[op])


# size_rule's rules -> (op, factors): what the native core reads to answer
# them without a Python call (function_node hands it to cpuframe._core's
# core_install). Rules are made once per class, where the class is defined.
SIZE_RULES = {}


def size_rule(op, *factors):
    """A class's 'auto' size rule (``intel64_profitable`` or
    ``intel64_profitable_on_device``) written as data: ``AUTO_MIN[op]``
    against the product of ``factors``, each an input index ``i``
    (``inputs[i].size``), a pair ``(i, axis)`` (``inputs[i].shape[axis]``)
    or an attribute name of the node (``getattr(node, name).size``).
    ``op`` None: never (the route is not taken on these arrays by 'auto').

    The function returned answers as ``auto_profitable`` would; the native
    core reads the same data instead of calling it (a Python call per op
    is most of what 'auto' and the Intel64 device add to a small op).
    ``AUTO_MIN`` is read at each call, so a changed threshold holds at
    once.
    """
    for f in factors:
        if not (type(f) is int or type(f) is str or (
                type(f) is tuple and len(f) == 2 and
                type(f[0]) is int and type(f[1]) is int)):
            raise TypeError(
                'size_rule: each factor must be an input index, an (index, '
                'axis) pair or an attribute name, got {!r}'.format(f))
    if op is None:
        if factors:
            raise TypeError('size_rule: a rule that never routes takes no '
                            'factors, got {!r}'.format(factors))

        def rule(self, inputs):
            return False
    elif len(factors) == 1 and type(factors[0]) is int:
        index = factors[0]

        def rule(self, inputs):
            return inputs[index].size >= AUTO_MIN[op]
    elif len(factors) == 1 and type(factors[0]) is str:
        name = factors[0]

        def rule(self, inputs):
            return getattr(self, name).size >= AUTO_MIN[op]
    else:
        def rule(self, inputs):
            n = 1
            for f in factors:
                if type(f) is int:
                    n *= inputs[f].size
                elif type(f) is str:
                    n *= getattr(self, f).size
                else:
                    n *= inputs[f[0]].shape[f[1]]
            return n >= AUTO_MIN[op]
    rule.__doc__ = 'Whether AUTO_MIN[{!r}] is reached by {} (size_rule).'.format(
        op, ' * '.join(map(_factor_text, factors)) or 'nothing')
    SIZE_RULES[rule] = (op, factors)
    return rule


def _factor_text(f):
    if type(f) is int:
        return 'inputs[{}].size'.format(f)
    if type(f) is str:
        return 'self.{}.size'.format(f)
    return 'inputs[{}].shape[{}]'.format(*f)
