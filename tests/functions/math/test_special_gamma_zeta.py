"""F.lgamma, F.digamma, F.polygamma, F.zeta: NumPy kernels (no SciPy)
checked against math.lgamma, closed forms, series and brute-force sums.

Accuracy reached in float64 (asserted below): lgamma within 2e-15 of
math.lgamma away from its zeros (relative to max(1, |value|)) and within
1e-14 relative next to the zeros at 1 and 2 (against the Taylor series);
digamma, polygamma and zeta within 1e-14 relative of closed forms.
"""
import fractions
import math

import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check

EULER = 0.57721566490153286
ZETA3 = 1.2020569031595942854
ZETA5 = 1.0369277551433699263


def test_lgamma_matches_math_lgamma():
    xs = numpy.concatenate([numpy.linspace(0.01, 40, 4001),
                            numpy.linspace(-30.5, -0.01, 3001),
                            [1e-300, 3e-10, 1e5, 1e100, 1e300]])
    xs = xs[xs != numpy.floor(xs)]
    ref = numpy.array([math.lgamma(v) for v in xs])
    y = F.lgamma(xs).array
    err = numpy.abs(y - ref) / numpy.maximum(numpy.abs(ref), 1.0)
    assert err.max() < 2e-15


@pytest.mark.parametrize('center', [1.0, 2.0])
def test_lgamma_relative_accuracy_at_its_zeros(center):
    # lgamma(1 + z) = -g z + sum_{k>=2} (-1)^k zeta(k) / k z^k
    x = center + numpy.array([-1e-3, -1e-6, 1e-9, 2e-4, 3e-3])
    z = x - center  # exact
    zetas = [math.pi ** 2 / 6, ZETA3, math.pi ** 4 / 90, ZETA5,
             math.pi ** 6 / 945]
    ref = -EULER * z + sum((-1) ** k * zetas[k - 2] / k * z ** k
                           for k in range(2, 7))
    if center == 2.0:
        ref = ref + numpy.log1p(z)
    y = F.lgamma(x).array
    numpy.testing.assert_allclose(y, ref, rtol=1e-14, atol=0)


def test_lgamma_edges_as_scipy():
    x = numpy.array([0.0, -0.0, -1.0, -7.0, numpy.inf, -numpy.inf, numpy.nan,
                     1.0, 2.0, 1e307, -1e300])
    y = F.lgamma(x).array
    expected = [numpy.inf] * 6 + [numpy.nan, 0.0, 0.0, numpy.inf, numpy.inf]
    numpy.testing.assert_array_equal(y, expected)


def test_digamma_closed_forms():
    x = numpy.array([1.0, 0.5, 2.0, 0.25, 1.0 / 3, 10.0, -0.5])
    ref = [-EULER, -EULER - 2 * math.log(2), 1 - EULER,
           -EULER - math.pi / 2 - 3 * math.log(2),
           -EULER - math.pi / (2 * math.sqrt(3)) - 1.5 * math.log(3),
           -EULER + sum(1.0 / k for k in range(1, 10)),
           2 - EULER - 2 * math.log(2)]
    numpy.testing.assert_allclose(F.digamma(x).array, ref, rtol=1e-14)


def test_digamma_recurrence_reflection_and_root():
    rs = numpy.random.RandomState(0)
    x = numpy.concatenate([rs.uniform(0.01, 50, 500), [1e6, 1e200]])
    psi = F.digamma
    # near 0: psi(x) = -1/x - g + pi^2/6 x + O(x^2)
    assert psi(numpy.array([1e-8])).array[0] == pytest.approx(
        -1e8 - EULER + math.pi ** 2 / 6 * 1e-8, rel=1e-15)
    numpy.testing.assert_allclose(psi(x + 1).array, psi(x).array + 1 / x,
                                  rtol=2e-14, atol=1e-14)
    xn = rs.uniform(-20, 0, 500)
    xn = xn[numpy.abs(xn - numpy.round(xn)) > 1e-3]
    numpy.testing.assert_allclose(
        psi(xn).array,
        psi(1 - xn).array - math.pi / numpy.tan(math.pi * xn),
        rtol=1e-11, atol=1e-12)
    # the root 1.4616321449683623412626595...: digamma is ~1e-17 there
    # and the slope is trigamma(x0) = sum 1 / (x0 + k)^2
    x0 = 1.4616321449683623
    assert abs(psi(numpy.array([x0])).array[0]) < 1e-16
    k = numpy.arange(10 ** 6, dtype=numpy.float64)
    slope = numpy.sum(1 / (x0 + k) ** 2) + 1 / (x0 + 10 ** 6)
    x1 = x0 + 1e-10
    y = psi(numpy.array([x1])).array[0]
    root_lo = float(fractions.Fraction('1.461632144968362341262659542326')
                    - fractions.Fraction(x0))
    assert y / ((x1 - x0) - root_lo) == pytest.approx(slope, rel=1e-8)
    # asymptotic log x - 1/(2x) at huge x
    assert psi(numpy.array([1e200])).array[0] == pytest.approx(
        200 * math.log(10), rel=1e-15)


def test_digamma_edges_as_scipy():
    x = numpy.array([0.0, -0.0, -1.0, -3.0, numpy.inf, -numpy.inf,
                     numpy.nan])
    y = F.digamma(x).array
    numpy.testing.assert_array_equal(
        y, [-numpy.inf, numpy.inf, numpy.nan, numpy.nan, numpy.inf,
            numpy.nan, numpy.nan])


def test_polygamma_closed_forms_and_recurrence():
    n = numpy.array([0, 1, 2, 3, 1, 2])
    x = numpy.array([1.0, 1.0, 1.0, 1.0, 0.5, 0.5])
    ref = [-EULER, math.pi ** 2 / 6, -2 * ZETA3, math.pi ** 4 / 15,
           math.pi ** 2 / 2, -14 * ZETA3]
    numpy.testing.assert_allclose(F.polygamma(n, x).array, ref, rtol=1e-14)
    # psi^(n)(x + 1) = psi^(n)(x) + (-1)^n n! / x^(n+1)
    rs = numpy.random.RandomState(1)
    x = rs.uniform(0.5, 30, 300)
    for k in range(1, 6):
        nk = numpy.full(x.shape, k)
        lhs = F.polygamma(nk, x + 1).array
        rhs = F.polygamma(nk, x).array + \
            (-1) ** k * math.factorial(k) / x ** (k + 1)
        numpy.testing.assert_allclose(lhs, rhs, rtol=1e-12)
    # trigamma by brute force: sum 1/(x+k)^2 with an integral tail
    x0 = 0.3
    kk = numpy.arange(200000, dtype=numpy.float64)
    brute = numpy.sum(1 / (x0 + kk) ** 2) + 1 / (x0 + 200000) + \
        0.5 / (x0 + 200000) ** 2
    assert F.polygamma(numpy.array([1]), numpy.array([x0])).array[0] == \
        pytest.approx(brute, rel=1e-13)
    # negative non-integer x: reflection trigamma(1-x) + trigamma(x)
    # = pi^2 / sin^2(pi x)
    xn = numpy.array([-0.5, -2.3, -7.75])
    one = numpy.ones(3, numpy.int64)
    numpy.testing.assert_allclose(
        F.polygamma(one, xn).array + F.polygamma(one, 1 - xn).array,
        math.pi ** 2 / numpy.sin(math.pi * xn) ** 2, rtol=1e-12)
    y = F.polygamma(numpy.array([1, 2, -1]), numpy.array([0.0, 0.0, 1.0]))
    numpy.testing.assert_array_equal(y.array,
                                     [numpy.inf, -numpy.inf, numpy.nan])


def test_zeta_closed_forms_and_brute_force():
    s = numpy.array([2.0, 4.0, 3.0, 2.0, 6.0, 30.0, 1.5])
    q = numpy.array([1.0, 1.0, 0.5, 3.0, 1.0, 1.0, 1.0])
    ref = [math.pi ** 2 / 6, math.pi ** 4 / 90, 7 * ZETA3,
           math.pi ** 2 / 6 - 1.25, math.pi ** 6 / 945,
           1 + 2.0 ** -30 + 3.0 ** -30 + 4.0 ** -30,
           2.6123753486854883]
    numpy.testing.assert_allclose(F.zeta(s, q).array, ref, rtol=1e-14)
    # brute force with an integral tail for a non-integral exponent
    s0, q0, n = 2.7, 0.37, 100000
    k = numpy.arange(n, dtype=numpy.float64)
    a = q0 + n
    brute = numpy.sum((q0 + k) ** -s0) + a ** (1 - s0) / (s0 - 1) + \
        0.5 * a ** -s0
    assert F.zeta(s0, numpy.array([q0])).array[0] == pytest.approx(
        brute, rel=1e-12)
    # large exponent and large q
    assert F.zeta(200.0, numpy.array([150.0])).array[0] == pytest.approx(
        150.0 ** -200 * sum((150.0 / (150 + j)) ** 200 for j in range(400)),
        rel=1e-13)


def test_zeta_edges_as_scipy():
    s = numpy.array([1.0, 0.5, 2.0, 2.5, 2.0, 2.0, numpy.inf])
    q = numpy.array([1.0, 1.0, 0.0, -1.5, -1.5, numpy.inf, 2.0])
    y = F.zeta(s, q).array
    numpy.testing.assert_allclose(
        y, [numpy.inf, numpy.nan, numpy.inf, numpy.nan,
            # zeta(2, -1.5) = (-1.5)^-2 + (-0.5)^-2 + zeta(2, 0.5)
            1 / 2.25 + 4 + math.pi ** 2 / 2, 0.0, 0.0], rtol=1e-14)


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32,
                                   numpy.float64])
def test_dtypes_kept(dtype):
    x = numpy.array([0.5, 1.5, 3.0], dtype)
    for y in (F.lgamma(x), F.digamma(x), F.zeta(2.0, x),
              F.polygamma(numpy.array([1, 1, 1]), x)):
        assert y.dtype == dtype and y.shape == x.shape
    tol = {numpy.float16: 1e-3, numpy.float32: 1e-6, numpy.float64: 1e-15}
    numpy.testing.assert_allclose(
        F.lgamma(x).array, [math.lgamma(float(v)) for v in x],
        rtol=tol[dtype], atol=tol[dtype])


X = numpy.array([0.3, 1.2, 2.5, 7.0, -0.4])


@pytest.mark.parametrize('f', [
    F.lgamma,
    F.digamma,
    lambda x: F.polygamma(numpy.array([1, 2, 1, 3, 2]), x),
    lambda x: F.zeta(numpy.array([2.0, 3.5, 2.0, 5.0, 2.0]), x),
], ids=['lgamma', 'digamma', 'polygamma', 'zeta'])
def test_gradients(f):
    rs = numpy.random.RandomState(0)
    x = X.copy()
    if f is not F.lgamma and f is not F.digamma:
        x = numpy.abs(x) + 0.1
    gy = rs.randn(*x.shape)
    ggx = rs.randn(*x.shape)
    gradient_check.check_backward(f, x, gy, dtype=numpy.float64)
    gradient_check.check_double_backward(f, x, gy, ggx, dtype=numpy.float64)


def test_gradients_float32():
    x = numpy.array([0.6, 1.7, 3.2], numpy.float32)
    gradient_check.check_backward(F.lgamma, x, numpy.ones(3, numpy.float32),
                                  atol=1e-2, rtol=1e-2)
    gradient_check.check_backward(F.digamma, x, numpy.ones(3, numpy.float32),
                                  atol=1e-2, rtol=1e-2)


def test_rejects_bad_dtypes():
    with pytest.raises(Exception, match='kind'):
        F.lgamma(numpy.array([1], numpy.int32))
    with pytest.raises(Exception, match='kind'):
        F.polygamma(numpy.array([1.0]), numpy.array([1.0]))
    with pytest.raises(Exception, match='kind'):
        F.zeta(2.0, numpy.array([1], numpy.int64))


def test_module_layout():
    from cpuframe.functions.math import digamma, lgamma, polygamma, zeta
    assert lgamma.lgamma is F.lgamma and digamma.digamma is F.digamma
    assert polygamma.polygamma is F.polygamma and zeta.zeta is F.zeta
    assert lgamma.LGamma().label == 'lgamma'
    assert zeta.Zeta(2.0).label == 'zeta'
