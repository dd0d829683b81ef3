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


# ---------------------------------------------------------------------------
# NumPy kernels for the special functions that Python's ``math`` module lacks
# (lgamma is here too so that it is vectorised).  They work in float64 and
# follow SciPy's conventions at poles and outside the domain; the callers
# cast the results to the input's dtype.  SciPy is never used for them.

import fractions  # noqa: E402

_EULER_GAMMA = 0.57721566490153286060651209008240243
_LOG_2PI_HALF = 0.91893853320467274178032973640561764  # log(2 pi) / 2
_INV_SQRT_PI = 0.56418958354775628694807945156077259
_SQRT_PI = 1.77245385090551602729816748334114518
_SQRT2 = 1.41421356237309504880168872420969808


def _bernoulli_even(count):
    """The Bernoulli numbers B_2, B_4, ..., B_{2 count} as Fractions."""
    # B_m from the recurrence sum_{k<=m} C(m+1, k) B_k = 0, B_0 = 1.
    b = [fractions.Fraction(1)]
    for m in range(1, 2 * count + 1):
        acc = fractions.Fraction(0)
        binom = 1
        for k in range(m):
            acc += binom * b[k]
            binom = binom * (m + 1 - k) // (k + 1)
        b.append(-acc / (m + 1))
    return [b[2 * j] for j in range(1, count + 1)]


_B2J = _bernoulli_even(20)
# Euler-Maclaurin tail of the Hurwitz zeta: B_2j / (2j)!.
_EM_COEF = [float(b / math.factorial(2 * j))
            for j, b in enumerate(_B2J, start=1)]
# Stirling's series of lgamma: B_2j / (2j (2j - 1)).
_STIRLING = [float(b / (2 * j * (2 * j - 1)))
             for j, b in enumerate(_B2J[:10], start=1)]
# Asymptotic series of digamma: B_2j / (2j).
_PSI_ASYM = [float(b / (2 * j)) for j, b in enumerate(_B2J[:10], start=1)]


def _f64(x):
    return numpy.asarray(x, dtype=numpy.float64)


_erf_loop = numpy.frompyfunc(math.erf, 1, 1)
_erfc_loop = numpy.frompyfunc(math.erfc, 1, 1)


def erf64(x):
    """``erf`` of a float64 array (elementwise ``math.erf``)."""
    return numpy.asarray(_erf_loop(_f64(x)), dtype=numpy.float64)


def erfc64(x):
    """``erfc`` of a float64 array (elementwise ``math.erfc``)."""
    return numpy.asarray(_erfc_loop(_f64(x)), dtype=numpy.float64)


def _horner(coefs, z):
    """sum_k coefs[k] z^k."""
    acc = numpy.zeros_like(z)
    for c in reversed(coefs):
        acc = acc * z + c
    return acc


def _sinpi_reduced(x):
    """(r, parity) with x = n + r, |r| <= 1/2, sin(pi x) = (-1)^n sin(pi r).
    x must be finite."""
    n = numpy.round(x)
    return x - n, numpy.where(numpy.fmod(n, 2) == 0, 1.0, -1.0)


def hurwitz_zeta(s, q):
    """The Hurwitz zeta function sum_{k>=0} (q + k)^-s, as SciPy's
    ``zeta(s, q)``: inf at s = 1 and at q = 0, -1, ...; nan for s < 1 and
    for q < 0 with a non-integral s.

    A direct sum up to q + N >= max(10, s) (at most 64 terms for q > 0)
    followed by the Euler-Maclaurin tail with 12 Bernoulli terms.
    """
    s, q = numpy.broadcast_arrays(_f64(s), _f64(q))
    s = s.copy()
    q = q.copy()
    out = numpy.full(s.shape, numpy.nan)
    pole = (s == 1) | ((q <= 0) & (q == numpy.floor(q)))
    ok = (s > 1) & ~pole & ~numpy.isnan(q) & \
        ~((q < 0) & (s != numpy.floor(s))) & (q != numpy.inf)
    out[pole & ~numpy.isnan(s) & ~numpy.isnan(q)] = numpy.inf
    out[(q == numpy.inf) & (s > 1)] = 0.0
    inf_s = ok & (s == numpy.inf)
    with numpy.errstate(over='ignore', divide='ignore'):
        out[inf_s] = numpy.where(q[inf_s] > 1, 0.0,
                                 numpy.where(q[inf_s] == 1, 1.0, numpy.inf))
    ok &= ~inf_s
    if not ok.any():
        return out
    s, q = s[ok], q[ok]
    target = numpy.maximum(10.0, s)
    n_terms = numpy.ceil(target - q)
    n_terms = numpy.where(q > 0, numpy.minimum(n_terms, 64.0), n_terms)
    n_terms = numpy.maximum(n_terms, 0.0)
    total = numpy.zeros_like(s)
    with numpy.errstate(over='ignore', divide='ignore', invalid='ignore'):
        for k in range(int(n_terms.max()) if n_terms.size else 0):
            use = k < n_terms
            total += numpy.where(use, numpy.power(q + k, -s), 0.0)
        a = q + n_terms
        a_pow = numpy.power(a, -s)
        tail = a * a_pow / (s - 1) + 0.5 * a_pow
        # term_j = B_2j / (2j)! * s (s+1) ... (s+2j-2) a^(-s-2j+1)
        t = a_pow * s / a
        for j, c in enumerate(_EM_COEF[:12], start=1):
            tail += c * t
            t = t * (s + 2 * j - 1) * (s + 2 * j) / (a * a)
        out[ok] = total + tail
    return out


# lgamma(2 + z) = (1 - gamma) z + sum_{k>=2} (-1)^k (zeta(k) - 1) / k z^k
_LGAMMA2_SERIES = [0.0, 1.0 - _EULER_GAMMA] + [
    (-1) ** k * float(hurwitz_zeta(float(k), 2.0)) / k for k in range(2, 34)]


def _lgamma_positive(x):
    """lgamma for finite x >= 0.5."""
    out = numpy.empty_like(x)
    big = x >= 13
    if big.any():
        xb = x[big]
        inv = 1.0 / xb
        inv2 = inv * inv
        corr = _horner(_STIRLING[:8], inv2) * inv
        with numpy.errstate(over='ignore'):
            out[big] = (xb - 0.5) * numpy.log(xb) - xb + _LOG_2PI_HALF + corr
    mid = ~big
    if mid.any():
        xm = x[mid]
        # shift down into [1.5, 2.5): lgamma(x) = lgamma(x - n) + log prod
        n = numpy.maximum(numpy.floor(xm - 1.5), 0.0)
        prod = numpy.ones_like(xm)
        for i in range(1, int(n.max()) + 1 if n.size else 1):
            prod = numpy.where(i <= n, prod * (xm - i), prod)
        xr = xm - n
        low = xr < 1.5          # [0.5, 1.5): lgamma(1+z) = lgamma(2+z) - log1p z
        z = numpy.where(low, xr - 1.0, xr - 2.0)
        val = _horner(_LGAMMA2_SERIES, z)
        val = numpy.where(low, val - numpy.log1p(z), val)
        out[mid] = val + numpy.log(prod)
    return out


def lgamma(x):
    """log |Gamma(x)| (SciPy's ``gammaln``): inf at 0, -1, -2, ... and at
    +-inf."""
    x = _f64(x)
    scalar = x.ndim == 0
    x = numpy.atleast_1d(x)
    out = numpy.full(x.shape, numpy.nan)
    finite = numpy.isfinite(x)
    out[numpy.isinf(x)] = numpy.inf
    pole = finite & (x <= 0) & (x == numpy.floor(x))
    out[pole] = numpy.inf
    pos = finite & (x >= 0.5)
    if pos.any():
        out[pos] = _lgamma_positive(x[pos])
    refl = finite & (x < 0.5) & ~pole
    if refl.any():
        xr = x[refl]
        r, _ = _sinpi_reduced(xr)
        # Gamma(x) Gamma(1 - x) = pi / sin(pi x)
        out[refl] = (math.log(math.pi) - numpy.log(numpy.abs(
            numpy.sin(math.pi * r))) - _lgamma_positive(1.0 - xr))
    return out[0] if scalar else out


# The positive root of digamma and its Taylor series about it, so that
# digamma keeps its relative accuracy there.
_PSI_ROOT = 1.4616321449683622
_PSI_ROOT_LO = float(
    fractions.Fraction('1.46163214496836234126265954232572132846819620400644')
    - fractions.Fraction(_PSI_ROOT))
_PSI_ROOT_SERIES = [0.0] + [
    (-1) ** (k + 1) * float(hurwitz_zeta(float(k + 1), _PSI_ROOT))
    for k in range(1, 26)]


def _digamma_positive(x):
    """digamma for finite x > 0."""
    out = numpy.empty_like(x)
    near_root = numpy.abs(x - _PSI_ROOT) < 0.25
    if near_root.any():
        z = (x[near_root] - _PSI_ROOT) - _PSI_ROOT_LO
        out[near_root] = _horner(_PSI_ROOT_SERIES, z)
    rest = ~near_root
    if rest.any():
        xr = x[rest]
        n = numpy.maximum(numpy.ceil(10.0 - xr), 0.0)
        acc = numpy.zeros_like(xr)
        for i in range(int(n.max()) if n.size else 0):
            acc = numpy.where(i < n, acc + 1.0 / (xr + i), acc)
        y = xr + n
        inv2 = 1.0 / (y * y)
        out[rest] = (numpy.log(y) - 0.5 / y
                     - _horner(_PSI_ASYM[:8], inv2) * inv2 - acc)
    return out


def digamma(x):
    """The digamma function (SciPy's ``psi``): nan at -1, -2, ... and -inf,
    -inf at +0, +inf at -0."""
    x = _f64(x)
    scalar = x.ndim == 0
    x = numpy.atleast_1d(x)
    out = numpy.full(x.shape, numpy.nan)
    out[x == numpy.inf] = numpy.inf
    zero = x == 0
    out[zero] = numpy.copysign(numpy.inf, -x[zero])
    pos = numpy.isfinite(x) & (x > 0)
    if pos.any():
        out[pos] = _digamma_positive(x[pos])
    neg = numpy.isfinite(x) & (x < 0) & (x != numpy.floor(x))
    if neg.any():
        xn = x[neg]
        r, _ = _sinpi_reduced(xn)
        # psi(1 - x) - psi(x) = pi cot(pi x)
        cot = numpy.cos(math.pi * r) / numpy.sin(math.pi * r)
        out[neg] = _digamma_positive(1.0 - xn) - math.pi * cot
    return out[0] if scalar else out


def polygamma(n, x):
    """The n-th derivative of digamma (n = 0: digamma itself), as SciPy:
    (-1)^(n+1) n! zeta(n + 1, x) for n >= 1; nan for negative n."""
    n, x = numpy.broadcast_arrays(numpy.asarray(n), _f64(x))
    nf = n.astype(numpy.float64)
    out = numpy.full(x.shape, numpy.nan)
    zero = nf == 0
    if zero.any():
        out[zero] = digamma(x[zero])
    pos = nf >= 1
    if pos.any():
        npos = nf[pos]
        sign = numpy.where(numpy.fmod(npos, 2) == 1, 1.0, -1.0)
        fact = numpy.exp(lgamma(npos + 1.0))
        exact = npos <= 20
        fact[exact] = [float(math.factorial(int(v))) for v in npos[exact]]
        with numpy.errstate(over='ignore', invalid='ignore'):
            out[pos] = sign * fact * hurwitz_zeta(npos + 1.0, x[pos])
    return out


def erfcx(x):
    """exp(x^2) erfc(x), accurate for large x (and inf for x < -26.6)."""
    x = _f64(x)
    scalar = x.ndim == 0
    x = numpy.atleast_1d(x)
    out = numpy.full(x.shape, numpy.nan)
    out[x == numpy.inf] = 0.0
    out[x == -numpy.inf] = numpy.inf
    huge = numpy.isfinite(x) & (x >= 1e8)
    out[huge] = _INV_SQRT_PI / x[huge]
    big = numpy.isfinite(x) & (x >= 25.0) & (x < 1e8)
    if big.any():
        # asymptotic series 1/(x sqrt pi) sum_k (-1)^k (2k-1)!! / (2x^2)^k
        xb = x[big]
        u = 1.0 / (2.0 * xb * xb)
        term = numpy.ones_like(xb)
        acc = numpy.ones_like(xb)
        for k in range(1, 14):
            term = -term * (2 * k - 1) * u
            acc += term
        out[big] = acc * _INV_SQRT_PI / xb
    mid = numpy.isfinite(x) & (x < 25.0) & (x >= 0)
    if mid.any():
        xm = x[mid]
        out[mid] = _exp_x2(xm) * erfc64(xm)
    neg = numpy.isfinite(x) & (x < 0)
    if neg.any():
        xn = -x[neg]
        with numpy.errstate(over='ignore'):
            out[neg] = 2.0 * _exp_x2(xn) - erfcx(xn)
    return out[0] if scalar else out


def _exp_x2(x, sign=1.0):
    """exp(sign * x^2) without the rounding error of x^2 (x finite)."""
    hi = numpy.round(x * 2.0 ** 20) * 2.0 ** -20  # 20 fraction bits: hi^2 exact
    lo = x - hi
    with numpy.errstate(over='ignore', under='ignore'):
        return numpy.exp(sign * hi * hi) * numpy.exp(
            sign * (2.0 * hi * lo + lo * lo))


def _erfinv_small(y):
    """erfinv for |y| <= 1/2: series start, Newton steps on erf."""
    z = 0.5 * _SQRT_PI * y
    z2 = z * z
    x = z * _horner([1.0, 1.0 / 3, 7.0 / 30, 127.0 / 630, 4369.0 / 22680], z2)
    for _ in range(3):
        x = x - (erf64(x) - y) * 0.5 * _SQRT_PI * _exp_x2(x)
    return x


def _erfc_tail_inverse(t):
    """x >= 0 with erfc(x) = t, for 0 < t <= 1/2: Newton's method on
    log erfc(x) = log erfcx(x) - x^2."""
    log_t = numpy.log(t)
    lt = -log_t
    x = numpy.sqrt(numpy.maximum(lt - 0.5 * numpy.log(math.pi * lt), 0.2))
    for _ in range(7):
        ex = erfcx(x)
        g = numpy.log(ex) - x * x - log_t
        x = x + g * 0.5 * _SQRT_PI * ex
    return x


def erfinv(y):
    """Inverse of erf on [-1, 1] (+-inf at +-1, nan outside)."""
    y = _f64(y)
    scalar = y.ndim == 0
    y = numpy.atleast_1d(y)
    out = numpy.full(y.shape, numpy.nan)
    a = numpy.abs(y)
    out[a == 1] = numpy.copysign(numpy.inf, y[a == 1])
    small = a <= 0.5
    out[small] = _erfinv_small(y[small])
    tail = (a > 0.5) & (a < 1)
    if tail.any():
        out[tail] = numpy.sign(y[tail]) * _erfc_tail_inverse(1.0 - a[tail])
    return out[0] if scalar else out


def erfcinv(z):
    """Inverse of erfc on [0, 2] (inf at 0, -inf at 2, nan outside)."""
    z = _f64(z)
    scalar = z.ndim == 0
    z = numpy.atleast_1d(z)
    out = numpy.full(z.shape, numpy.nan)
    out[z == 0] = numpy.inf
    out[z == 2] = -numpy.inf
    low = (z > 0) & (z < 0.5)
    out[low] = _erfc_tail_inverse(z[low])
    mid = (z >= 0.5) & (z <= 1.5)
    out[mid] = _erfinv_small(1.0 - z[mid])
    high = (z > 1.5) & (z < 2)
    out[high] = -_erfc_tail_inverse(2.0 - z[high])
    return out[0] if scalar else out


def ndtri(p):
    """Inverse of the standard normal CDF on [0, 1]."""
    return -_SQRT2 * erfcinv(2.0 * _f64(p)) + 0.0  # +0 at p = 1/2


def log_ndtr(x):
    """log of the standard normal CDF, accurate far into both tails."""
    x = _f64(x)
    scalar = x.ndim == 0
    x = numpy.atleast_1d(x)
    out = numpy.full(x.shape, numpy.nan)
    out[x == numpy.inf] = 0.0
    out[x == -numpy.inf] = -numpy.inf
    pos = numpy.isfinite(x) & (x > 0)
    out[pos] = numpy.log1p(-0.5 * erfc64(x[pos] / _SQRT2))
    neg = numpy.isfinite(x) & (x <= 0)
    xn = x[neg]
    out[neg] = numpy.log(0.5 * erfcx(-xn / _SQRT2)) - 0.5 * xn * xn
    return out[0] if scalar else out


_KERNELS = {
    'lgamma': ('gammaln', lgamma),
    'digamma': ('digamma', digamma),
    'polygamma': ('polygamma', polygamma),
    'zeta': ('zeta', hurwitz_zeta),
    'erfinv': ('erfinv', erfinv),
    'erfcinv': ('erfcinv', erfcinv),
    'erfcx': ('erfcx', erfcx),
    'ndtri': ('ndtri', ndtri),
    'log_ndtr': ('log_ndtr', log_ndtr),
}


def apply_kernel(name, dtype, *args):
    """The NumPy kernel ``name`` on ``args`` (cupyx's on CuPy arrays), cast
    to ``dtype``.  Floating-point warnings of the kernels are silenced: their
    poles and domain edges give inf and nan as documented."""
    from cpuframe.backends import cuda
    cupy_name, kernel = _KERNELS[name]
    if any(cuda.is_cupy_array(a) for a in args):
        import cupyx.scipy.special
        y = getattr(cupyx.scipy.special, cupy_name)(*args)
        return y.astype(dtype, copy=False)
    with numpy.errstate(all='ignore'):
        y = kernel(*args)
    return numpy.asarray(y, dtype=dtype)
