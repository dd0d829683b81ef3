"""F.erfinv, F.erfcinv, F.erfcx, F.ndtri, F.log_ndtr: NumPy kernels (no
SciPy), checked by round trips through math.erf / math.erfc, closed forms
and asymptotic expansions.

Accuracy reached in float64 (asserted below): the inverses are within 2e-15
relative of the exact preimage of their argument (round-trip error divided
by the slope); erfcx within 1e-14 relative; log_ndtr within 1e-14 relative
from -1e10 to 40.
"""
import math

import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check

SQRT2 = math.sqrt(2.0)


def _inverse_error(x, y, forward, slope):
    """Relative error of x as a preimage of y: |forward(x) - y| / |slope|."""
    back = numpy.array([forward(float(v)) for v in x])
    return numpy.abs(back - y) / numpy.abs(slope) / numpy.maximum(
        numpy.abs(x), 1e-300)


def test_erfinv_round_trip():
    y = numpy.concatenate([numpy.linspace(-0.9999999, 0.9999999, 4001),
                           [1e-300, -1e-20, 0.5, -0.5, 1 - 2 ** -52]])
    x = F.erfinv(y).array
    slope = 2 / math.sqrt(math.pi) * numpy.exp(-x * x)
    assert _inverse_error(x, y, math.erf, slope).max() < 2e-15
    assert x[-5] == pytest.approx(1e-300 * math.sqrt(math.pi) / 2,
                                  rel=1e-15)


def test_erfcinv_round_trip_deep_tail():
    z = numpy.concatenate([numpy.logspace(-300, 0, 3001),
                           numpy.linspace(0.01, 1.99, 999), [5e-324]])
    x = F.erfcinv(z).array
    slope = 2 / math.sqrt(math.pi) * numpy.exp(-x * x)
    err = _inverse_error(x[:-1], z[:-1], math.erfc, slope[:-1])
    assert err.max() < 2e-15
    assert 27.2 < x[-1] < 27.3   # the smallest subnormal still inverts


def test_ndtri_closed_values_and_round_trip():
    # well-known quantiles of the standard normal
    p = numpy.array([0.5, 0.975, 0.025, 0.8413447460685429])
    numpy.testing.assert_allclose(
        F.ndtri(p).array, [0.0, 1.959963984540054, -1.959963984540054, 1.0],
        rtol=1e-14, atol=1e-16)
    p = numpy.logspace(-300, math.log10(0.999), 2000)
    x = F.ndtri(p).array
    err = _inverse_error(
        x, p, lambda v: 0.5 * math.erfc(-v / SQRT2),
        numpy.exp(-0.5 * x * x) / math.sqrt(2 * math.pi))
    assert err.max() < 3e-15


def test_inverse_edges_as_scipy():
    inf, nan = numpy.inf, numpy.nan
    numpy.testing.assert_array_equal(
        F.erfinv(numpy.array([1.0, -1.0, 1.5, -2.0, nan, 0.0])).array,
        [inf, -inf, nan, nan, nan, 0.0])
    numpy.testing.assert_array_equal(
        F.erfcinv(numpy.array([0.0, 2.0, -0.1, 2.1, nan, 1.0])).array,
        [inf, -inf, nan, nan, nan, 0.0])
    numpy.testing.assert_array_equal(
        F.ndtri(numpy.array([0.0, 1.0, -0.1, 1.1, nan, 0.5])).array,
        [-inf, inf, nan, nan, nan, 0.0])


def test_erfcx_values():
    # exact squares (x has few bits) so exp(x*x) in the reference is exact
    x = numpy.arange(-200, 200, dtype=numpy.float64) / 64
    ref = numpy.array([math.exp(v * v) * math.erfc(v) for v in x])
    numpy.testing.assert_allclose(F.erfcx(x).array, ref, rtol=1e-14)
    # the asymptotic series 1/(x sqrt pi) (1 - 1/(2x^2) + 3/(4x^4) - ...)
    xb = numpy.array([200.0, 1e3, 1e4, 1e10, 1e300])
    with numpy.errstate(over='ignore'):
        u = 1 / (2 * xb * xb)
    ref = (1 - u + 3 * u * u - 15 * u ** 3) / (xb * math.sqrt(math.pi))
    numpy.testing.assert_allclose(F.erfcx(xb).array, ref, rtol=1e-15)
    numpy.testing.assert_array_equal(
        F.erfcx(numpy.array([numpy.inf, -numpy.inf, -30.0, numpy.nan])).array,
        [0.0, numpy.inf, numpy.inf, numpy.nan])


def test_log_ndtr_values():
    x = numpy.linspace(-37, 8, 2001)
    ref = numpy.array([math.log(0.5 * math.erfc(-v / SQRT2)) if v <= 0
                       else math.log1p(-0.5 * math.erfc(v / SQRT2))
                       for v in x])
    numpy.testing.assert_allclose(F.log_ndtr(x).array, ref, rtol=1e-14)
    # far tail: log ndtr(x) = -x^2/2 - log(-x sqrt(2 pi)) + log(1 - 1/x^2..)
    xt = numpy.array([-1e3, -1e5, -1e10])
    ref = -0.5 * xt * xt - numpy.log(-xt * math.sqrt(2 * math.pi)) + \
        numpy.log1p(-1 / xt ** 2 + 3 / xt ** 4)
    numpy.testing.assert_allclose(F.log_ndtr(xt).array, ref, rtol=1e-15)
    numpy.testing.assert_array_equal(
        F.log_ndtr(numpy.array([numpy.inf, -numpy.inf, numpy.nan])).array,
        [0.0, -numpy.inf, numpy.nan])


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32,
                                   numpy.float64])
def test_dtypes_kept(dtype):
    p = numpy.array([0.1, 0.5, 0.8], dtype)
    for f in (F.erfinv, F.erfcinv, F.ndtri, F.erfcx, F.log_ndtr):
        y = f(p)
        assert y.dtype == dtype and y.shape == p.shape
    tol = {numpy.float16: 2e-3, numpy.float32: 1e-6, numpy.float64: 1e-15}
    x = F.erfinv(p).array
    numpy.testing.assert_allclose(
        [math.erf(float(v)) for v in x], p.astype(numpy.float64),
        rtol=tol[dtype] * 4)


@pytest.mark.parametrize('f,lo,hi', [
    (F.erfinv, -0.9, 0.9),
    (F.erfcinv, 0.1, 1.9),
    (F.ndtri, 0.05, 0.95),
    (F.erfcx, -3.0, 5.0),
    (F.log_ndtr, -8.0, 5.0),
], ids=['erfinv', 'erfcinv', 'ndtri', 'erfcx', 'log_ndtr'])
def test_gradients(f, lo, hi):
    rs = numpy.random.RandomState(0)
    x = rs.uniform(lo, hi, (3, 4))
    gy = rs.randn(3, 4)
    ggx = rs.randn(3, 4)
    gradient_check.check_backward(f, x, gy, dtype=numpy.float64)
    gradient_check.check_double_backward(f, x, gy, ggx, dtype=numpy.float64)


def test_log_ndtr_gradient_in_far_tail_is_finite():
    import cpuframe
    x = cpuframe.Variable(numpy.array([-40.0, -1e4]))
    y = F.log_ndtr(x)
    y.grad = numpy.ones(2)
    y.backward()
    # d/dx log ndtr(x) ~ -x for x -> -inf
    numpy.testing.assert_allclose(x.grad, [40.0248, 1e4], rtol=1e-4)


def test_rejects_ints():
    for f in (F.erfinv, F.erfcinv, F.ndtri, F.erfcx, F.log_ndtr):
        with pytest.raises(Exception, match='kind'):
            f(numpy.array([1], numpy.int32))


def test_module_layout():
    from cpuframe.functions.math import erfcinv, erfcx, erfinv, log_ndtr, ndtri
    assert erfinv.erfinv is F.erfinv and erfcinv.erfcinv is F.erfcinv
    assert erfcx.erfcx is F.erfcx and ndtri.ndtri is F.ndtri
    assert log_ndtr.log_ndtr is F.log_ndtr
    assert ndtri.Ndtri().label == 'ndtri'
