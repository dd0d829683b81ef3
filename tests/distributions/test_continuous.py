"""The continuous scalar distributions of cpuframe.distributions: log_prob
against densities written out here, normalisation, mean, variance and
entropy by numerical integration, sample moments, cdf/icdf, gradients of
log_prob with respect to the parameters, and reparameterised sampling."""
import math

import numpy
import pytest

import cpuframe
import cpuframe.distributions as D
from cpuframe import gradient_check

EULER = 0.5772156649015329
LG = numpy.vectorize(math.lgamma)


def _lin(lo, hi):
    return numpy.linspace(lo, hi, 200001)


def _geo(lo, hi):
    return numpy.geomspace(lo, hi, 200001)


# name: (factory, params, reference density, integration grid,
#        reparameterised sampling)
CASES = {
    'normal': (
        lambda m, s: D.Normal(m, s), ([-0.5, 1.0], [0.7, 1.6]),
        lambda x, m, s: numpy.exp(-(x - m) ** 2 / (2 * s * s))
        / numpy.sqrt(2 * math.pi * s * s),
        _lin(-15, 15), True),
    'normal_log_scale': (
        lambda m, ls: D.Normal(m, log_scale=ls), ([-0.5, 1.0], [-0.3, 0.4]),
        lambda x, m, ls: numpy.exp(-(x - m) ** 2 / (2 * numpy.exp(2 * ls)))
        / numpy.sqrt(2 * math.pi) / numpy.exp(ls),
        _lin(-15, 15), True),
    'log_normal': (
        lambda m, s: D.LogNormal(m, s), ([0.2, -0.3], [0.5, 0.3]),
        lambda x, m, s: numpy.exp(-(numpy.log(x) - m) ** 2 / (2 * s * s))
        / (x * s * math.sqrt(2 * math.pi)),
        _geo(1e-4, 1e3), True),
    'laplace': (
        lambda m, b: D.Laplace(m, b), ([0.3, -1.0], [0.5, 1.2]),
        lambda x, m, b: numpy.exp(-numpy.abs(x - m) / b) / (2 * b),
        _lin(-60, 60), True),
    'gumbel': (
        lambda m, b: D.Gumbel(m, b), ([0.3, -1.0], [0.5, 1.2]),
        lambda x, m, b: numpy.exp(-(x - m) / b - numpy.exp(-(x - m) / b))
        / b,
        _lin(-20, 80), True),
    'beta': (
        lambda a, b: D.Beta(a, b), ([2.0, 3.5], [1.5, 5.0]),
        lambda x, a, b: numpy.exp((a - 1) * numpy.log(x)
                                  + (b - 1) * numpy.log1p(-x)
                                  - LG(a) - LG(b) + LG(a + b)),
        _lin(1e-12, 1 - 1e-12), False),
    'gamma': (
        lambda k, t: D.Gamma(k, t), ([2.5, 1.5], [0.8, 2.0]),
        lambda x, k, t: numpy.exp((k - 1) * numpy.log(x) - x / t - LG(k)
                                  - k * numpy.log(t)),
        _geo(1e-10, 300), False),
    'exponential': (
        lambda lam: D.Exponential(lam), ([0.5, 2.0],),
        lambda x, lam: lam * numpy.exp(-lam * x),
        _geo(1e-12, 200), True),
    'uniform': (
        lambda lo, hi: D.Uniform(low=lo, high=hi), ([-1.0, 0.5], [2.0, 0.7]),
        lambda x, lo, hi: numpy.where((x >= lo) & (x <= hi),
                                      1 / (hi - lo), 0.0),
        _lin(-3, 3), True),
    'uniform_loc_scale': (
        lambda loc, sc: D.Uniform(loc=loc, scale=sc),
        ([-1.0, 0.5], [3.0, 0.2]),
        lambda x, loc, sc: numpy.where((x >= loc) & (x <= loc + sc),
                                       1 / sc, 0.0),
        _lin(-3, 3), True),
    'chisquare': (
        lambda k: D.Chisquare(k), ([3.0, 5.5],),
        lambda x, k: numpy.exp((k / 2 - 1) * numpy.log(x) - x / 2
                               - k / 2 * math.log(2) - LG(k / 2)),
        _geo(1e-10, 300), False),
    'pareto': (
        lambda s, a: D.Pareto(s, a), ([0.5, 1.5], [4.5, 6.0]),
        lambda x, s, a: numpy.where(x >= s, a * s ** a / x ** (a + 1), 0.0),
        _geo(0.5, 1e4), True),
    'cauchy': (
        lambda m, b: D.Cauchy(m, b), ([0.3, -1.0], [0.5, 1.2]),
        lambda x, m, b: 1 / (math.pi * b * (1 + ((x - m) / b) ** 2)),
        None, True),
}
NAMES = sorted(CASES)


def _make(name, dtype=numpy.float64):
    factory, params = CASES[name][:2]
    params = [numpy.asarray(p, dtype) for p in params]
    return factory(*params), params


@pytest.mark.parametrize('name', NAMES)
def test_log_prob_matches_density(name):
    dist, params = _make(name)
    grid = CASES[name][3]
    x = (grid if grid is not None else _lin(-50, 50))[::1000][:, None]
    x = x[(x > 0.51).all(1)] if name == 'pareto' else x
    ref = CASES[name][2](x, *params)
    lp = dist.log_prob(x).array
    ok = ref > 1e-250      # where the reference density does not underflow
    numpy.testing.assert_allclose(lp[ok], numpy.log(ref[ok]), rtol=1e-10,
                                  atol=1e-10)
    assert (lp[ref == 0] < -500).all()
    numpy.testing.assert_allclose(dist.prob(x).array, ref, rtol=1e-10,
                                  atol=1e-12)
    assert dist.batch_shape == (2,) and dist.event_shape == ()


@pytest.mark.parametrize('name', [n for n in NAMES if n != 'cauchy'])
def test_moments_and_entropy_by_integration(name):
    dist, params = _make(name)
    x = CASES[name][3][:, None]
    p = CASES[name][2](x, *params)
    # the trapezoid rule is O(step) accurate at a density's jump
    jump = name.startswith('uniform') or name == 'pareto'
    total = numpy.trapezoid(p, x, axis=0)
    numpy.testing.assert_allclose(total, 1.0, rtol=2e-4 if jump else 2e-5)
    mean = numpy.trapezoid(x * p, x, axis=0)
    var = numpy.trapezoid((x - mean) ** 2 * p, x, axis=0)
    with numpy.errstate(divide='ignore', invalid='ignore'):
        plogp = numpy.where(p > 0, p * numpy.log(p), 0.0)
    ent = -numpy.trapezoid(plogp, x, axis=0)
    numpy.testing.assert_allclose(dist.mean.array, mean, rtol=1e-4)
    numpy.testing.assert_allclose(dist.variance.array, var, rtol=1e-3)
    numpy.testing.assert_allclose(dist.entropy.array, ent, rtol=1e-3,
                                  atol=1e-4)
    if hasattr(type(dist), 'stddev') and name not in (
            'log_normal', 'gumbel', 'beta', 'gamma', 'exponential',
            'chisquare', 'pareto'):
        numpy.testing.assert_allclose(dist.stddev.array, numpy.sqrt(var),
                                      rtol=1e-3)


@pytest.mark.parametrize('name', [n for n in NAMES if n != 'cauchy'])
def test_sample_moments(name):
    numpy.random.seed(0)
    dist, _ = _make(name)
    n = 40000
    s = dist.sample(n).array
    assert s.shape == (n, 2) and s.dtype == numpy.float64
    mean, var = dist.mean.array, dist.variance.array
    se_mean = numpy.sqrt(var / n)
    assert (numpy.abs(s.mean(0) - mean) < 5 * se_mean).all()
    dev = (s - mean) ** 2
    se_var = dev.std(0) / numpy.sqrt(n)
    assert (numpy.abs(dev.mean(0) - var) < 5 * se_var).all()
    # every sample lies in the support: finite log-probability
    assert numpy.isfinite(dist.log_prob(s).array).all()


def test_cauchy_quartiles_of_samples_and_undefined_moments():
    numpy.random.seed(1)
    dist, (m, b) = _make('cauchy')
    s = dist.sample((20000,)).array
    q1, q2, q3 = numpy.percentile(s, [25, 50, 75], axis=0)
    numpy.testing.assert_allclose(q2, m, atol=0.05)
    numpy.testing.assert_allclose(q3 - q1, 2 * b, rtol=0.05)
    with pytest.warns(RuntimeWarning, match='undefined'):
        assert numpy.isnan(dist.mean.array).all()
    with pytest.warns(RuntimeWarning, match='undefined'):
        assert numpy.isnan(dist.variance.array).all()
    numpy.testing.assert_allclose(dist.entropy.array,
                                  numpy.log(4 * math.pi * b))


@pytest.mark.parametrize('name', ['normal', 'laplace', 'cauchy', 'gumbel',
                                  'exponential', 'uniform', 'pareto'])
def test_cdf_icdf_against_integrated_density(name):
    dist, params = _make(name)
    if not hasattr(dist, 'cdf'):
        return
    grid = CASES[name][3] if CASES[name][3] is not None else _lin(-2000,
                                                                  2000)
    x = grid[:, None]
    p = CASES[name][2](x, *params)
    # cumulative trapezoid
    cum = numpy.concatenate([numpy.zeros((1, 2)), numpy.cumsum(
        0.5 * (p[1:] + p[:-1]) * numpy.diff(x, axis=0), axis=0)])
    probe = x[::5000]
    c = dist.cdf(probe).array
    tail = 1e-3 if name == 'cauchy' else 1e-5
    tail = 2e-4 if name in ('uniform', 'pareto') else tail
    base = 1 - cum[-1] if name == 'cauchy' else 0
    numpy.testing.assert_allclose(c, cum[::5000] + base / 2, atol=tail)
    if name in ('uniform', 'pareto', 'exponential'):
        return
    q = numpy.array([[0.01, 0.3], [0.5, 0.99]])
    numpy.testing.assert_allclose(dist.cdf(dist.icdf(q)).array, q,
                                  rtol=1e-12)


def test_normal_cdf_family():
    dist, (m, s) = _make('normal')
    x = numpy.array([[-3.0, 0.0], [2.0, 50.0]])
    z = (x - m) / s
    cdf = 0.5 * (1 + numpy.vectorize(math.erf)(z / math.sqrt(2)))
    numpy.testing.assert_allclose(dist.cdf(x).array, cdf, rtol=1e-12)
    sf = 0.5 * numpy.vectorize(math.erfc)(z / math.sqrt(2))
    numpy.testing.assert_allclose(dist.log_cdf(x).array, numpy.log1p(-sf),
                                  rtol=1e-12)
    numpy.testing.assert_allclose(dist.survival_function(x).array, sf,
                                  rtol=1e-12)
    numpy.testing.assert_allclose(dist.log_survival_function(x).array,
                                  numpy.log(sf), rtol=1e-12)
    numpy.testing.assert_allclose(
        dist.icdf(numpy.array([0.5, 0.975])).array,
        m + s * numpy.array([0.0, 1.959963984540054]), rtol=1e-12)
    assert dist.support == 'real'
    assert set(dist.params) == {'loc', 'scale'}


GRAD_POINTS = {
    'normal': [0.3, -0.8], 'normal_log_scale': [0.3, -0.8],
    'log_normal': [0.7, 1.9], 'laplace': [0.1, 0.2], 'gumbel': [0.4, 1.1],
    'beta': [0.3, 0.6], 'gamma': [0.9, 2.5], 'exponential': [0.4, 1.3],
    'chisquare': [1.5, 4.0], 'pareto': [0.9, 2.0], 'cauchy': [0.2, 0.9],
}


@pytest.mark.parametrize('name', sorted(GRAD_POINTS))
def test_log_prob_gradients(name):
    factory, params = CASES[name][:2]
    params = [numpy.asarray(p, numpy.float64) for p in params]
    x = numpy.asarray(GRAD_POINTS[name])
    gy = numpy.array([0.7, -1.3])

    def f(*ps):
        return factory(*ps).log_prob(x)
    gradient_check.check_backward(f, tuple(params), gy, eps=1e-5,
                                  dtype=numpy.float64)

    def ent(*ps):
        return factory(*ps).entropy
    if name != 'cauchy':
        gradient_check.check_backward(ent, tuple(params), gy, eps=1e-5,
                                      dtype=numpy.float64)


@pytest.mark.parametrize('name', [n for n in NAMES if CASES[n][4]])
def test_sampling_is_reparameterised(name):
    factory, params = CASES[name][:2]
    numpy.random.seed(3)
    ps = [cpuframe.Variable(numpy.asarray(p, numpy.float64))
          for p in params]
    s = factory(*ps).sample(5)
    loss = cpuframe.functions.sum(s)
    loss.backward()
    for p in ps:
        assert p.grad is not None and numpy.isfinite(p.grad).all()
        assert (p.grad != 0).any()
    # the gradient is the derivative of the transform of the same noise:
    # compare with a finite difference taken with the same random state
    eps = 1e-6
    p0 = [numpy.asarray(p, numpy.float64) for p in params]
    p1 = [q.copy() for q in p0]
    p1[0] = p1[0] + eps
    numpy.random.seed(3)
    s0 = factory(*p0).sample(5).array.sum()
    numpy.random.seed(3)
    s1 = factory(*p1).sample(5).array.sum()
    numpy.testing.assert_allclose(ps[0].grad.sum(), (s1 - s0) / eps,
                                  rtol=1e-4)


def test_non_reparameterised_samples_carry_no_graph():
    numpy.random.seed(0)
    k = cpuframe.Variable(numpy.array([2.0, 3.0]))
    s = D.Gamma(k, numpy.array([1.0, 1.0])).sample(3)
    assert s.creator is None


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32,
                                   numpy.float64])
@pytest.mark.parametrize('name', ['normal', 'laplace', 'gamma', 'beta',
                                  'exponential', 'uniform'])
def test_dtypes(name, dtype):
    numpy.random.seed(0)
    dist, params = _make(name, dtype)
    s = dist.sample((4, 3))
    assert s.shape == (4, 3, 2) and s.dtype == dtype
    lp = dist.log_prob(s)
    assert lp.dtype == dtype and lp.shape == (4, 3, 2)
    ref = _make(name)[0].log_prob(s.array.astype(numpy.float64)).array
    tol = {numpy.float16: 3e-2, numpy.float32: 1e-5, numpy.float64: 1e-12}
    numpy.testing.assert_allclose(lp.array, ref, rtol=tol[dtype],
                                  atol=tol[dtype])


def test_support_edges():
    e = D.Exponential(numpy.array([1.0]))
    numpy.testing.assert_array_equal(
        e.log_prob(numpy.array([-1.0])).array, [-numpy.inf])
    numpy.testing.assert_array_equal(e.cdf(numpy.array([-1.0])).array, [0])
    u = D.Uniform(low=numpy.array([0.0]), high=numpy.array([1.0]))
    numpy.testing.assert_array_equal(
        u.log_prob(numpy.array([-0.1, 0.5, 1.1])).array,
        [-numpy.inf, 0.0, -numpy.inf])
    p = D.Pareto(numpy.array([1.0]), numpy.array([2.0]))
    assert p.log_prob(numpy.array([0.5])).array[0] == -numpy.inf
    assert D.Pareto(numpy.array([1.0]), numpy.array([0.5])).mean.array[0] \
        == numpy.inf
    assert D.Pareto(numpy.array([1.0]), numpy.array([1.5])).variance.array[
        0] == numpy.inf
