"""Bernoulli, Categorical, OneHotCategorical, Poisson, Geometric,
Dirichlet, MultivariateNormal and Independent: probabilities against
formulas written out here, sums over the support, sample statistics,
gradients, and argument errors."""
import math

import numpy
import pytest

import cpuframe
import cpuframe.distributions as D
import cpuframe.functions as F
from cpuframe import gradient_check


def test_bernoulli_p_and_logit_agree_with_formula():
    p = numpy.array([0.1, 0.5, 0.85])
    logit = numpy.log(p) - numpy.log1p(-p)
    x = numpy.array([[0.0], [1.0]])
    ref = numpy.log(numpy.where(x == 1, p, 1 - p))
    for d in (D.Bernoulli(p=p), D.Bernoulli(logit=logit)):
        numpy.testing.assert_allclose(d.log_prob(x).array, ref, rtol=1e-12)
        numpy.testing.assert_allclose(d.prob(x).array, numpy.exp(ref),
                                      rtol=1e-12)
        numpy.testing.assert_allclose(d.mean.array, p, rtol=1e-12)
        numpy.testing.assert_allclose(d.variance.array, p * (1 - p),
                                      rtol=1e-12)
        numpy.testing.assert_allclose(
            d.entropy.array, -(p * numpy.log(p) + (1 - p) * numpy.log1p(-p)),
            rtol=1e-12)
        assert d.support == '{0, 1}' and set(d.params) == {'logit'}


def test_bernoulli_extreme_logits_and_binary_check():
    d = D.Bernoulli(logit=numpy.array([numpy.inf, -numpy.inf, 800.0]))
    y = d.log_prob(numpy.array([1.0, 0.0, 0.0])).array
    numpy.testing.assert_array_equal(y, [0.0, 0.0, -800.0])
    d = D.Bernoulli(logit=numpy.array([0.3, 0.3]), binary_check=True)
    y = d.log_prob(numpy.array([0.5, 1.0])).array
    assert y[0] == -numpy.inf and numpy.isfinite(y[1])
    numpy.testing.assert_array_equal(
        d.prob(numpy.array([0.5, 1.0])).array == 0, [True, False])
    # without the check a fractional x gives the relaxed value
    d = D.Bernoulli(logit=numpy.array([0.3]))
    assert numpy.isfinite(d.log_prob(numpy.array([0.5])).array[0])


def test_bernoulli_gradients_and_samples():
    rs = numpy.random.RandomState(0)
    logit = rs.randn(4)
    x = (rs.rand(4) > 0.5).astype(numpy.float64)
    gy = rs.randn(4)
    gradient_check.check_backward(
        lambda lg: D.Bernoulli(logit=lg).log_prob(x), logit, gy,
        dtype=numpy.float64)
    gradient_check.check_double_backward(
        lambda lg: D.Bernoulli(logit=lg).log_prob(x), logit, gy,
        rs.randn(4), dtype=numpy.float64)
    gradient_check.check_backward(
        lambda p: D.Bernoulli(p=p).entropy, rs.uniform(0.2, 0.8, 4), gy,
        dtype=numpy.float64)
    numpy.random.seed(0)
    p = numpy.array([0.2, 0.7], numpy.float32)
    s = D.Bernoulli(p=p).sample((20000,)).array
    assert s.dtype == numpy.float32 and set(numpy.unique(s)) == {0, 1}
    assert (numpy.abs(s.mean(0) - p) < 5 * numpy.sqrt(p * (1 - p) / 20000)
            ).all()


def _categorical_cases():
    p = numpy.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])
    logit = numpy.log(p) + numpy.array([[3.0], [-1.0]])  # unnormalised
    return p, [D.Categorical(p), D.Categorical(logit=logit)]


def test_categorical_log_prob_entropy_and_samples():
    p, dists = _categorical_cases()
    x = numpy.array([[2, 0], [0, 1], [1, 2]])
    ref = numpy.log(p[numpy.arange(2), x])
    for d in dists:
        assert d.batch_shape == (2,) and d.event_shape == ()
        numpy.testing.assert_allclose(d.log_prob(x).array, ref, rtol=1e-12)
        numpy.testing.assert_allclose(d.p.array, p, rtol=1e-12)
        numpy.testing.assert_allclose(
            d.entropy.array, -(p * numpy.log(p)).sum(-1), rtol=1e-12)
    numpy.random.seed(0)
    s = dists[0].sample(30000).array
    assert s.shape == (30000, 2) and s.dtype.kind == 'i'
    freq = numpy.stack([(s == k).mean(0) for k in range(3)], -1)
    numpy.testing.assert_allclose(freq, p, atol=5 * math.sqrt(0.25 / 30000))


def test_categorical_gradient_and_errors():
    rs = numpy.random.RandomState(0)
    logit = rs.randn(2, 4)
    x = numpy.array([3, 1])
    gradient_check.check_backward(
        lambda lg: D.Categorical(logit=lg).log_prob(x), logit,
        rs.randn(2), dtype=numpy.float64)
    d = D.Categorical(logit=logit)
    with pytest.raises(ValueError, match='Categorical.log_prob.*\\[0, 4\\)'):
        d.log_prob(numpy.array([4, 0]))
    with pytest.raises(ValueError, match='not both'):
        D.Categorical(numpy.ones(3) / 3, logit=numpy.zeros(3))
    with pytest.raises(ValueError, match='not both'):
        D.Categorical()


def test_categorical_zero_probability_entropy_and_kl():
    p = numpy.array([[0.0, 0.4, 0.6]])
    q = numpy.array([[0.2, 0.3, 0.5]])
    d1, d2 = D.Categorical(p), D.Categorical(q)
    ref = (0.4 * math.log(0.4 / 0.3) + 0.6 * math.log(0.6 / 0.5))
    numpy.testing.assert_allclose(cpuframe.kl_divergence(d1, d2).array,
                                  [ref], rtol=1e-12)
    numpy.testing.assert_allclose(
        d1.entropy.array, [-(0.4 * math.log(0.4) + 0.6 * math.log(0.6))])


def test_one_hot_categorical():
    p = numpy.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])
    d = D.OneHotCategorical(p)
    assert d.batch_shape == (2,) and d.event_shape == (3,)
    x = numpy.eye(3)[[[2, 0], [1, 1]]]
    numpy.testing.assert_allclose(
        d.log_prob(x).array, numpy.log(p[numpy.arange(2), [[2, 0], [1, 1]]]),
        rtol=1e-12)
    numpy.random.seed(0)
    s = d.sample(20000).array
    assert s.shape == (20000, 2, 3) and (s.sum(-1) == 1).all()
    numpy.testing.assert_allclose(s.mean(0), d.mean.array, atol=0.02)
    numpy.testing.assert_allclose(d.variance.array, p * (1 - p))


def test_poisson_and_geometric_sum_to_one_with_moments():
    lam = numpy.array([0.7, 4.5])
    d = D.Poisson(lam)
    k = numpy.arange(80, dtype=numpy.float64)[:, None]
    ref = k * numpy.log(lam) - lam - numpy.vectorize(math.lgamma)(k + 1)
    lp = d.log_prob(k).array
    numpy.testing.assert_allclose(lp, ref, rtol=1e-12)
    pk = numpy.exp(lp)
    numpy.testing.assert_allclose(pk.sum(0), 1, rtol=1e-12)
    numpy.testing.assert_allclose((k * pk).sum(0), d.mean.array)
    numpy.testing.assert_allclose(((k - lam) ** 2 * pk).sum(0),
                                  d.variance.array)
    p = numpy.array([0.3, 0.8])
    g = D.Geometric(p)
    k = numpy.arange(1, 300, dtype=numpy.float64)[:, None]
    pk = g.prob(k).array
    numpy.testing.assert_allclose(pk, (1 - p) ** (k - 1) * p, rtol=1e-12)
    numpy.testing.assert_allclose(pk.sum(0), 1, rtol=1e-12)
    numpy.testing.assert_allclose((k * pk).sum(0), g.mean.array)
    m = g.mean.array
    numpy.testing.assert_allclose(((k - m) ** 2 * pk).sum(0),
                                  g.variance.array)
    numpy.testing.assert_allclose(g.entropy.array,
                                  -(pk * numpy.log(pk)).sum(0))
    numpy.random.seed(0)
    for dist in (d, g):
        s = dist.sample(20000).array
        se = numpy.sqrt(dist.variance.array / 20000)
        assert (numpy.abs(s.mean(0) - dist.mean.array) < 5 * se).all()
    gradient_check.check_backward(
        lambda lm: D.Poisson(lm).log_prob(numpy.array([2.0, 5.0])), lam,
        numpy.ones(2), dtype=numpy.float64)
    gradient_check.check_backward(
        lambda q: D.Geometric(q).log_prob(numpy.array([2.0, 5.0])), p,
        numpy.ones(2), dtype=numpy.float64)


def test_dirichlet():
    alpha = numpy.array([[2.0, 3.0, 1.5], [0.8, 1.2, 4.0]])
    d = D.Dirichlet(alpha)
    assert d.batch_shape == (2,) and d.event_shape == (3,)
    x = numpy.array([[0.2, 0.3, 0.5], [0.1, 0.6, 0.3]])
    lg = numpy.vectorize(math.lgamma)
    ref = ((alpha - 1) * numpy.log(x)).sum(-1) - lg(alpha).sum(-1) + \
        lg(alpha.sum(-1))
    numpy.testing.assert_allclose(d.log_prob(x).array, ref, rtol=1e-12)
    # normalisation and entropy of a 2-category Dirichlet = a Beta
    d2 = D.Dirichlet(numpy.array([2.0, 3.0]))
    b = D.Beta(numpy.array(2.0), numpy.array(3.0))
    u = numpy.linspace(0.05, 0.95, 7)
    numpy.testing.assert_allclose(
        d2.log_prob(numpy.stack([u, 1 - u], -1)).array, b.log_prob(u).array,
        rtol=1e-12)
    numpy.testing.assert_allclose(d2.entropy.array, b.entropy.array,
                                  rtol=1e-12)
    numpy.random.seed(0)
    s = d.sample(20000).array
    numpy.testing.assert_allclose(s.sum(-1), 1, rtol=1e-12)
    se = numpy.sqrt(d.variance.array / 20000)
    assert (numpy.abs(s.mean(0) - d.mean.array) < 5 * se).all()
    assert (numpy.abs(s.var(0) / d.variance.array - 1) < 0.05).all()
    gradient_check.check_backward(lambda a: D.Dirichlet(a).log_prob(x),
                                  alpha, numpy.ones(2), dtype=numpy.float64)


def _mvn_params():
    rs = numpy.random.RandomState(0)
    loc = rs.randn(2, 3)
    lt = numpy.tril(rs.randn(2, 3, 3), -1) + \
        numpy.eye(3) * rs.uniform(0.5, 1.5, (2, 1, 3))
    return loc, lt


def test_multivariate_normal_against_density_formula():
    loc, lt = _mvn_params()
    d = D.MultivariateNormal(loc, scale_tril=lt)
    assert d.batch_shape == (2,) and d.event_shape == (3,) and d.d == 3
    cov = lt @ lt.transpose(0, 2, 1)
    numpy.testing.assert_allclose(d.covariance.array, cov, rtol=1e-12)
    rs = numpy.random.RandomState(1)
    x = rs.randn(4, 2, 3)
    diff = x - loc
    maha = numpy.einsum('...i,...ij,...j->...', diff, numpy.linalg.inv(cov),
                        diff)
    ref = -0.5 * (3 * math.log(2 * math.pi)
                  + numpy.log(numpy.linalg.det(cov)) + maha)
    numpy.testing.assert_allclose(d.log_prob(x).array, ref, rtol=1e-10)
    numpy.testing.assert_allclose(
        d.entropy.array,
        0.5 * numpy.log(numpy.linalg.det(2 * math.pi * math.e * cov)),
        rtol=1e-12)
    numpy.random.seed(0)
    s = d.sample(30000).array
    assert s.shape == (30000, 2, 3)
    numpy.testing.assert_allclose(s.mean(0), loc, atol=0.05)
    emp = numpy.einsum('nbi,nbj->bij', s - loc, s - loc) / 30000
    numpy.testing.assert_allclose(emp, cov, atol=0.1)


def test_multivariate_normal_gradients_and_errors():
    loc, lt = _mvn_params()
    x = numpy.random.RandomState(2).randn(2, 3)
    gradient_check.check_backward(
        lambda m, tril: D.MultivariateNormal(m, scale_tril=tril).log_prob(x),
        (loc, lt), numpy.ones(2), dtype=numpy.float64, eps=1e-5)
    with pytest.raises(ValueError, match='scale_tril'):
        D.MultivariateNormal(loc)
    with pytest.raises(ValueError, match='MultivariateNormal'):
        D.MultivariateNormal(loc, scale_tril=lt[:, :2, :2])


def test_independent():
    rs = numpy.random.RandomState(0)
    loc, scale = rs.randn(2, 3, 4), numpy.exp(rs.randn(2, 3, 4))
    base = D.Normal(loc, scale)
    ind = D.Independent(base)
    assert ind.reinterpreted_batch_ndims == 2
    assert ind.batch_shape == (2,) and ind.event_shape == (3, 4)
    x = rs.randn(5, 2, 3, 4)
    numpy.testing.assert_allclose(
        ind.log_prob(x).array, base.log_prob(x).array.sum((-1, -2)),
        rtol=1e-12)
    numpy.testing.assert_allclose(ind.entropy.array,
                                  base.entropy.array.sum((-1, -2)))
    numpy.testing.assert_allclose(ind.cdf(x).array,
                                  base.cdf(x).array.prod((-1, -2)))
    assert ind.sample(3).shape == (3, 2, 3, 4)
    cov = ind.covariance.array
    assert cov.shape == (2, 12, 12)
    numpy.testing.assert_allclose(
        cov[1], numpy.diag(scale[1].ravel() ** 2), rtol=1e-12)
    one = D.Independent(base, reinterpreted_batch_ndims=1)
    assert one.batch_shape == (2, 3) and one.event_shape == (4,)
    with pytest.raises(ValueError, match='reinterpreted_batch_ndims'):
        D.Independent(base, reinterpreted_batch_ndims=4)
    with pytest.raises(RuntimeError, match='not invertible'):
        ind.icdf(x)
    # covariance of an Independent over MultivariateNormals: block diagonal
    mloc, lt = _mvn_params()
    mi = D.Independent(D.MultivariateNormal(mloc, scale_tril=lt),
                       reinterpreted_batch_ndims=1)
    c = mi.covariance.array
    assert c.shape == (6, 6)
    numpy.testing.assert_allclose(c[3:, 3:], lt[1] @ lt[1].T)
    numpy.testing.assert_array_equal(c[:3, 3:], 0)


def test_argument_errors():
    with pytest.raises(ValueError, match='Normal.*not both'):
        D.Normal(numpy.zeros(2), numpy.ones(2), log_scale=numpy.zeros(2))
    with pytest.raises(ValueError, match='Normal.*not both'):
        D.Normal(numpy.zeros(2))
    with pytest.raises(ValueError, match='Normal: the shapes of loc, scale'):
        D.Normal(numpy.zeros(2), numpy.ones(3))
    with pytest.raises(TypeError, match='Gamma: k must be a floating'):
        D.Gamma(numpy.array([1, 2]), numpy.ones(2))
    with pytest.raises(TypeError, match='share one dtype'):
        D.Laplace(numpy.zeros(2, numpy.float32), numpy.ones(2))
    with pytest.raises(ValueError, match='Bernoulli.*not both'):
        D.Bernoulli(p=numpy.ones(1) / 2, logit=numpy.zeros(1))
    with pytest.raises(ValueError, match='Uniform.*not both'):
        D.Uniform(low=numpy.zeros(1), high=numpy.ones(1),
                  loc=numpy.zeros(1), scale=numpy.ones(1))
    with pytest.raises(TypeError):
        D.Normal(numpy.zeros(1), numpy.ones(1), bad=1)
    with pytest.raises(ValueError, match='sample_shape'):
        D.Normal(numpy.zeros(1), numpy.ones(1)).sample((-1,))


def test_broadcast_parameters():
    d = D.Normal(numpy.zeros((3, 1)), numpy.ones(4))
    assert d.batch_shape == (3, 4)
    assert d.sample(2).shape == (2, 3, 4)


def test_namespace_and_modules():
    import cpuframe.distribution as distribution_mod
    from cpuframe.distributions import normal, utils
    assert cpuframe.Distribution is distribution_mod.Distribution
    assert cpuframe.kl_divergence is distribution_mod.kl_divergence
    assert cpuframe.register_kl is distribution_mod.register_kl
    assert cpuframe.cross_entropy is distribution_mod.cross_entropy
    assert cpuframe.distributions.Normal is normal.Normal
    assert hasattr(utils, '_modified_xlogx')
    for name in ('Bernoulli', 'Beta', 'Categorical', 'Cauchy', 'Chisquare',
                 'Dirichlet', 'Exponential', 'Gamma', 'Geometric', 'Gumbel',
                 'Independent', 'Laplace', 'LogNormal', 'MultivariateNormal',
                 'Normal', 'OneHotCategorical', 'Pareto', 'Poisson',
                 'Uniform'):
        assert issubclass(getattr(D, name), cpuframe.Distribution)
    assert F.sum is cpuframe.functions.sum
