"""kl_divergence for every pair Chainer registers, against Monte-Carlo
estimates E_p[log p(x) - log q(x)]; cross_entropy; register_kl; KL
gradients."""
import numpy
import pytest

import cpuframe
import cpuframe.distributions as D
from cpuframe import gradient_check


def a(*v):
    return numpy.array(v, numpy.float64)


def _mvn(seed):
    rs = numpy.random.RandomState(seed)
    lt = numpy.tril(rs.randn(2, 3, 3), -1) * 0.5 + \
        numpy.eye(3) * rs.uniform(0.6, 1.4, (2, 1, 3))
    return D.MultivariateNormal(rs.randn(2, 3) * 0.5, scale_tril=lt)


PAIRS = {
    'normal': lambda: (D.Normal(a(0.0, 1.0), a(1.0, 0.5)),
                       D.Normal(a(0.5, -0.5), a(1.5, 0.8))),
    'log_normal': lambda: (D.LogNormal(a(0.0, 0.3), a(0.4, 0.6)),
                           D.LogNormal(a(0.2, -0.1), a(0.5, 0.9))),
    'bernoulli': lambda: (D.Bernoulli(p=a(0.3, 0.9)),
                          D.Bernoulli(logit=a(0.5, -1.0))),
    'categorical': lambda: (
        D.Categorical(numpy.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])),
        D.Categorical(logit=numpy.array([[0.1, -0.3, 0.4], [1.0, 0.2, 0.]]))),
    'one_hot_categorical': lambda: (
        D.OneHotCategorical(numpy.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])),
        D.OneHotCategorical(numpy.array([[0.3, 0.3, 0.4], [0.1, 0.5, 0.4]]))),
    'beta': lambda: (D.Beta(a(2.0, 1.5), a(3.0, 4.0)),
                     D.Beta(a(1.5, 2.5), a(2.0, 3.0))),
    'gamma': lambda: (D.Gamma(a(2.0, 3.5), a(1.0, 0.5)),
                      D.Gamma(a(1.5, 3.0), a(1.5, 0.7))),
    'dirichlet': lambda: (D.Dirichlet(numpy.array([[2.0, 3.0, 1.5]])),
                          D.Dirichlet(numpy.array([[1.5, 2.5, 2.0]]))),
    'exponential': lambda: (D.Exponential(a(1.0, 2.0)),
                            D.Exponential(a(1.5, 1.2))),
    'laplace': lambda: (D.Laplace(a(0.0, 1.0), a(1.0, 0.5)),
                        D.Laplace(a(0.5, -0.5), a(1.5, 0.8))),
    'poisson': lambda: (D.Poisson(a(2.0, 5.0)), D.Poisson(a(3.0, 4.0))),
    'uniform': lambda: (D.Uniform(low=a(0.0, 1.0), high=a(1.0, 2.0)),
                        D.Uniform(loc=a(-0.5, 0.5), scale=a(2.0, 3.0))),
    'geometric': lambda: (D.Geometric(a(0.3, 0.7)),
                          D.Geometric(a(0.5, 0.4))),
    'gumbel': lambda: (D.Gumbel(a(0.0, 1.0), a(1.0, 0.5)),
                       D.Gumbel(a(0.5, -0.5), a(1.5, 0.8))),
    'pareto': lambda: (D.Pareto(a(1.0, 2.0), a(3.0, 4.0)),
                       D.Pareto(a(0.8, 1.5), a(2.0, 5.0))),
    'multivariate_normal': lambda: (_mvn(0), _mvn(1)),
    'independent': lambda: (
        D.Independent(D.Normal(numpy.zeros((2, 3)), numpy.ones((2, 3)))),
        D.Independent(D.Normal(numpy.full((2, 3), 0.5),
                               numpy.full((2, 3), 1.5)))),
}


@pytest.mark.parametrize('name', sorted(PAIRS))
def test_kl_matches_monte_carlo(name):
    numpy.random.seed(0)
    p, q = PAIRS[name]()
    kl = cpuframe.kl_divergence(p, q).array
    assert kl.shape == p.batch_shape
    n = 40000
    x = p.sample(n)
    x = x.array.astype(numpy.float64) if x.dtype.kind == 'f' else x.array
    diff = p.log_prob(x).array - q.log_prob(x).array
    est, se = diff.mean(0), diff.std(0) / numpy.sqrt(n)
    assert (numpy.abs(kl - est) <= 5 * se + 1e-9).all(), (kl, est, se)
    assert (kl >= -1e-12).all()
    numpy.testing.assert_allclose(cpuframe.kl_divergence(p, p).array, 0,
                                  atol=1e-12)


def test_kl_outside_support_is_inf():
    u1 = D.Uniform(low=a(0.0), high=a(2.0))
    u2 = D.Uniform(low=a(0.5), high=a(3.0))
    assert cpuframe.kl_divergence(u1, u2).array[0] == numpy.inf
    p1 = D.Pareto(a(1.0), a(2.0))
    p2 = D.Pareto(a(1.5), a(2.0))
    assert cpuframe.kl_divergence(p1, p2).array[0] == numpy.inf


def test_cross_entropy_is_entropy_plus_kl_and_matches_monte_carlo():
    numpy.random.seed(1)
    p, q = PAIRS['normal']()
    ce = cpuframe.cross_entropy(p, q).array
    numpy.testing.assert_allclose(
        ce, p.entropy.array + cpuframe.kl_divergence(p, q).array)
    x = p.sample(40000).array
    nlq = -q.log_prob(x).array
    assert (numpy.abs(ce - nlq.mean(0)) < 5 * nlq.std(0) / 200).all()


@pytest.mark.parametrize('name', ['normal', 'bernoulli', 'categorical',
                                  'beta', 'gamma', 'dirichlet', 'laplace',
                                  'gumbel', 'exponential'])
def test_kl_gradients(name):
    p, q = PAIRS[name]()
    p_params = {k: v.array for k, v in p.params.items()}
    factory = type(p)

    def build(**kw):
        if factory is D.Bernoulli:
            return D.Bernoulli(logit=kw['logit'])
        if factory is D.Categorical:
            return D.Categorical(kw['p'])
        return factory(**kw)
    keys = sorted(p_params)

    def f(*vals):
        return cpuframe.kl_divergence(build(**dict(zip(keys, vals))), q)
    gy = numpy.ones(p.batch_shape)
    gradient_check.check_backward(f, tuple(p_params[k] for k in keys), gy,
                                  eps=1e-5, dtype=numpy.float64)


def test_register_kl_and_unregistered_pair():
    class MyNormal(D.Normal):
        pass

    p = MyNormal(a(0.0), a(1.0))
    q = D.Normal(a(0.0), a(1.0))
    with pytest.raises(NotImplementedError, match='MyNormal, Normal'):
        cpuframe.kl_divergence(p, q)

    @cpuframe.register_kl(MyNormal, D.Normal)
    def _kl(d1, d2):
        return d1.loc * 0 + 42.0

    assert cpuframe.kl_divergence(p, q).array[0] == 42.0
    with pytest.raises(TypeError, match='Distribution subclasses'):
        cpuframe.register_kl(int, D.Normal)
    with pytest.raises(NotImplementedError, match='Cauchy, Cauchy'):
        c = D.Cauchy(a(0.0), a(1.0))
        cpuframe.kl_divergence(c, c)


def test_independent_kl_event_shape_mismatch():
    p = D.Independent(D.Normal(numpy.zeros((2, 3)), numpy.ones((2, 3))))
    q = D.Independent(D.Normal(numpy.zeros((2, 3)), numpy.ones((2, 3))), 0)
    with pytest.raises(ValueError, match='event shapes'):
        cpuframe.kl_divergence(p, q)
