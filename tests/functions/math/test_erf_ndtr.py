"""F.erf, F.erfc, F.ndtr (SciPy-free fallback on this machine)."""
import math
import warnings

import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.functions.math import _special

X = numpy.array([-2.0, -0.5, 0.0, 0.3, 1.7], numpy.float64)
CASES = [
    (F.erf, math.erf),
    (F.erfc, math.erfc),
    (F.ndtr, lambda v: 0.5 * (1 + math.erf(v / math.sqrt(2)))),
]


@pytest.mark.parametrize('f,ref', CASES)
@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32,
                                   numpy.float64])
def test_values(f, ref, dtype):
    x = X.astype(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        y = f(x)
    assert y.dtype == dtype and y.shape == x.shape
    tol = {numpy.float16: 2e-3, numpy.float32: 1e-6, numpy.float64: 1e-12}
    numpy.testing.assert_allclose(
        y.array, [ref(float(v)) for v in x], rtol=tol[dtype],
        atol=tol[dtype])


@pytest.mark.parametrize('f,ref', CASES)
def test_gradients(f, ref):
    rs = numpy.random.RandomState(0)
    gy = rs.randn(*X.shape)
    ggx = rs.randn(*X.shape)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        gradient_check.check_backward(f, X, gy, dtype=numpy.float64)
        gradient_check.check_double_backward(f, X, gy, ggx,
                                             dtype=numpy.float64)


def test_rejects_ints():
    with pytest.raises(Exception, match='dtype|kind'):
        F.erf(numpy.array([1], numpy.int32))


def test_fallback_warns_once_about_performance(monkeypatch):
    import sys

    from cpuframe.warnings import PerformanceWarning
    monkeypatch.setitem(sys.modules, 'scipy', None)
    monkeypatch.setattr(_special, '_cache', {})
    with pytest.warns(PerformanceWarning, match='SciPy is not available'):
        F.erf(numpy.zeros(1, numpy.float32))
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        F.erf(numpy.zeros(1, numpy.float32))  # cached: no second warning


def test_module_layout():
    from cpuframe.functions.math import erf, erfc, ndtr
    assert erf.erf is F.erf and erfc.erfc is F.erfc and ndtr.ndtr is F.ndtr
    assert erf.Erf().label == 'erf'
