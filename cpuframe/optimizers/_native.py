"""The optimizers' native one-pass updates (csrc/optimizer.cpp) and what
decides whether one may stand for a rule's NumPy code.

Each kernel performs the float32 operations of its rule's NumPy code in
the same order, each rounded once, so parameters and states are bit for
bit the NumPy path's (NaN payloads aside). Two things the kernels cannot
do decide here: raise or call on a floating-point error as NumPy does when
set to (``numpy_raises``), and compute in float64 as NumPy does when a
hyperparameter is a float64 NumPy scalar (``float32_scalar``).
"""
import numpy

_kernels = {}


def kernel(name):
    """The native update ``name`` (e.g. ``'sgd_update_f32'``), or None
    without the native module."""
    try:
        return _kernels[name]
    except KeyError:
        pass
    from cpuframe.backends import intel64
    mod = intel64.native() if intel64.is_ideep_available() else None
    found = _kernels[name] = getattr(mod, name, None)
    return found


# The Python ints NumPy multiplies with a float32 array in float32: NumPy
# >= 2 casts every int to the array's dtype (NEP 50; exact up to 2^24);
# NumPy 1.x casts by value, and from 2^16 (-2^15) the int's smallest type
# (uint32, int32) makes the product float64.
_INT_RANGE = (-16777216, 16777216) if \
    int(numpy.__version__.split('.')[0]) >= 2 else (-32768, 65535)


def float32_scalar(x):
    """Whether NumPy computes ``x * a`` (``a`` a float32 array) in float32
    with ``x`` rounded to float32, as the kernels do: a Python float, a
    small Python int, a NumPy float32 (not a bool, not a float64 NumPy
    scalar, whose product NumPy >= 2 computes in float64). The kernels
    decline themselves a finite value beyond float32's largest."""
    t = type(x)
    return t is float or t is numpy.float32 or (
        t is int and _INT_RANGE[0] <= x <= _INT_RANGE[1])


# NumPy's floating-point error state (NumPy >= 2: a context variable whose
# value changes object when the state changes): the last answer is kept
# for the state object it was computed from.
_errstate_var = getattr(getattr(getattr(numpy, '_core', None),
                                '_ufunc_config', None),
                        '_extobj_contextvar', None)
_errstate_seen = (None, None)     # (state, answer), replaced whole
_RAISING = ('raise', 'call')


def numpy_raises():
    """Whether NumPy is set to raise (or call) on a floating-point error
    (overflow, invalid, division by zero or underflow), which a native
    kernel would not do. (Its warnings, NumPy's default for the first
    three, a kernel does not give either, as a fused NumPy loop would not.)"""
    global _errstate_seen
    if _errstate_var is not None:
        state = _errstate_var.get()
        seen = _errstate_seen
        if state is seen[0]:
            return seen[1]
    err = numpy.geterr()
    raises = err['over'] in _RAISING or err['invalid'] in _RAISING or \
        err['divide'] in _RAISING or err['under'] in _RAISING
    if _errstate_var is not None:
        _errstate_seen = (state, raises)
    return raises
