"""Special functions on the CPU: SciPy's when it is installed, else a
(slower) elementwise loop over Python's ``math`` module."""
import math
import warnings

import numpy

_cache = {}


def _ndtr_scalar(x):
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


_FALLBACKS = {
    'erf': math.erf,
    'erfc': math.erfc,
    'ndtr': _ndtr_scalar,
}


def cpu_function(name):
    """``scipy.special.<name>``, or a vectorized ``math`` fallback (with a
    PerformanceWarning, once) when SciPy is missing."""
    fn = _cache.get(name)
    if fn is None:
        try:
            from scipy import special
            fn = getattr(special, name)
        except ImportError:
            from cpuframe.warnings import PerformanceWarning
            warnings.warn('SciPy is not available. Forward computation of {} '
                          'in CPU can be slow without SciPy.'.format(name),
                          PerformanceWarning, stacklevel=3)
            fn = numpy.vectorize(_FALLBACKS[name], otypes=[numpy.float64])
        _cache[name] = fn
    return fn


def apply(name, x):
    """``name`` elementwise on the array ``x``, in ``x``'s dtype."""
    from cpuframe.backends import cuda
    if cuda.is_cupy_array(x):
        import cupyx.scipy.special
        return getattr(cupyx.scipy.special, name)(x).astype(x.dtype,
                                                             copy=False)
    return numpy.asarray(cpu_function(name)(x), dtype=x.dtype)
