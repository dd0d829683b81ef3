"""F.decorrelated_batch_normalization and
F.fixed_decorrelated_batch_normalization."""
import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.functions.normalization import (
    decorrelated_batch_normalization as dbn_module,
)
from cpuframe.utils import type_check

DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _groups_of(a, groups):
    """(b, c, ...) -> list over groups of (C, m) float64 matrices, by loops
    over the positions (channel k of group g is channel g * C + k)."""
    b, c = a.shape[:2]
    C = c // groups
    out = []
    for g in range(groups):
        cols = []
        for n in range(b):
            for pos in numpy.ndindex(*a.shape[2:]):
                cols.append([float(a[(n, g * C + k) + pos])
                             for k in range(C)])
        out.append(numpy.array(cols).T)
    return out


def _inv_sqrt(sigma):
    # through the SVD, not the eigendecomposition the function uses
    u, s, _ = numpy.linalg.svd(sigma)
    return u @ numpy.diag(s ** -0.5) @ u.T


def _reference(x, groups, eps):
    """The whitened groups, their means and ZCA matrices, in float64."""
    ys, means, zcas = [], [], []
    for X in _groups_of(x, groups):
        m = X.shape[1]
        mu = X.sum(axis=1) / m
        Xc = X - mu[:, None]
        sigma = sum(numpy.outer(Xc[:, j], Xc[:, j]) for j in range(m)) / m
        W = _inv_sqrt(sigma + eps * numpy.eye(len(mu)))
        ys.append(W @ Xc)
        means.append(mu)
        zcas.append(W)
    return ys, numpy.array(means), numpy.array(zcas)


def _x(shape, dtype=numpy.float64, seed=0):
    rng = numpy.random.RandomState(seed)
    x = rng.randn(*shape)
    # correlated channels with offsets, so that whitening has work to do
    mix = rng.randn(shape[1], shape[1]) * 0.5 + numpy.eye(shape[1])
    x = numpy.einsum('ij,bj...->bi...', mix, x) + rng.randn(
        *((1, shape[1]) + (1,) * (len(shape) - 2))) * 3
    return x.astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,groups', [((40, 4), 1), ((40, 6), 2),
                                          ((10, 6, 2, 3), 3),
                                          ((8, 4, 5), 4)])
def test_whitens_each_group(dtype, shape, groups):
    x = _x(shape, dtype)
    y = F.decorrelated_batch_normalization(x, groups=groups)
    assert y.dtype == dtype and y.shape == x.shape
    ys, _, _ = _reference(x, groups, 2e-5)
    tol = 2e-2 if dtype == numpy.float16 else 1e-4
    for Y, Y_ref in zip(_groups_of(y.array, groups), ys):
        m = Y.shape[1]
        numpy.testing.assert_allclose(Y, Y_ref, rtol=tol, atol=tol)
        numpy.testing.assert_allclose(Y.mean(axis=1), 0, atol=tol)
        # covariance is the identity, up to the eps on the diagonal
        numpy.testing.assert_allclose(Y @ Y.T / m, numpy.eye(len(Y)),
                                      atol=10 * tol)


def test_default_groups_is_16():
    x = _x((20, 32), seed=2)
    y = F.decorrelated_batch_normalization(x)
    for Y in _groups_of(y.array, 16):
        numpy.testing.assert_allclose(Y @ Y.T / Y.shape[1], numpy.eye(2),
                                      atol=1e-3)


def test_running_statistics_are_updated_in_place():
    x = _x((12, 6, 2), seed=1)
    mean = numpy.full((3, 2), 0.5)
    proj = numpy.tile(numpy.eye(2), (3, 1, 1))
    mean0, proj0 = mean.copy(), proj.copy()
    F.decorrelated_batch_normalization(x, groups=3, running_mean=mean,
                                       running_projection=proj, decay=0.7,
                                       eps=1e-3)
    _, mu, W = _reference(x, 3, 1e-3)
    m = 24
    numpy.testing.assert_allclose(mean, 0.7 * mean0 + 0.3 * mu, rtol=1e-10)
    numpy.testing.assert_allclose(proj, 0.7 * proj0 + 0.3 * m / (m - 1) * W,
                                  rtol=1e-8)


@pytest.mark.parametrize('shape,groups', [((9, 3), 1), ((5, 4, 3), 2),
                                          ((3, 2, 2, 2), 1)])
def test_backward(shape, groups):
    x = _x(shape, seed=3)
    gy = numpy.random.RandomState(4).randn(*shape)

    def f(x):
        return F.decorrelated_batch_normalization(x, groups=groups,
                                                  eps=1e-2)

    gradient_check.check_backward(f, (x,), gy, eps=1e-5, atol=1e-6,
                                  rtol=1e-5)


def test_backward_float32():
    x = _x((16, 4), numpy.float32, seed=5)
    gy = numpy.random.RandomState(6).randn(16, 4).astype(numpy.float32)
    gradient_check.check_backward(
        lambda x: F.decorrelated_batch_normalization(x, groups=2, eps=1e-2),
        (x,), gy, dtype=numpy.float64, atol=1e-3, rtol=1e-3)


def test_backward_with_equal_eigenvalues():
    # whitened data: the covariance is (nearly) a multiple of I, whose
    # eigenvalues coincide; the gradient must stay finite and right
    x = F.decorrelated_batch_normalization(_x((12, 3), seed=7),
                                           groups=1).array
    gy = numpy.random.RandomState(8).randn(12, 3)
    gradient_check.check_backward(
        lambda x: F.decorrelated_batch_normalization(x, groups=1, eps=0.5),
        (x,), gy, eps=1e-5, atol=1e-6, rtol=1e-5)


def test_double_backward_is_not_supported():
    x = cpuframe.Variable(_x((6, 2)))
    y = F.decorrelated_batch_normalization(x, groups=1)
    gx, = cpuframe.grad([F.sum(y * y * y)], [x], enable_double_backprop=True)
    with pytest.raises(NotImplementedError,
                       match='decorrelated_batch_normalization'):
        cpuframe.grad([F.sum(gx)], [x])


def test_errors():
    with pytest.raises(type_check.InvalidType,
                       match='DecorrelatedBatchNormalization'):
        F.decorrelated_batch_normalization(numpy.zeros((4, 6)), groups=4)
    with pytest.raises(type_check.InvalidType, match='running_mean.*'
                                                     r'\(2, 3\)'):
        F.decorrelated_batch_normalization(
            numpy.zeros((4, 6)), groups=2, running_mean=numpy.zeros(6))
    with pytest.raises(type_check.InvalidType, match='running_projection'):
        F.decorrelated_batch_normalization(
            numpy.zeros((4, 6)), groups=2,
            running_projection=numpy.zeros((2, 3)))
    with pytest.raises(ValueError, match='groups'):
        F.decorrelated_batch_normalization(numpy.zeros((4, 6)), groups=0)
    with pytest.raises(TypeError, match='bogus'):
        F.decorrelated_batch_normalization(numpy.zeros((4, 6)), bogus=1)


class TestFixed:
    def _args(self, dtype=numpy.float64, shape=(5, 6, 2), groups=3):
        rng = numpy.random.RandomState(9)
        C = shape[1] // groups
        return (rng.randn(*shape).astype(dtype),
                rng.randn(groups, C).astype(dtype),
                rng.randn(groups, C, C).astype(dtype))

    @pytest.mark.parametrize('dtype', DTYPES)
    def test_forward_against_loops(self, dtype):
        x, mean, proj = self._args(dtype)
        y = F.fixed_decorrelated_batch_normalization(x, mean, proj, groups=3)
        assert y.dtype == dtype
        expected = numpy.empty(x.shape)
        for b, ch, s in numpy.ndindex(*x.shape):
            g, k = divmod(ch, 2)
            expected[b, ch, s] = sum(
                float(proj[g, k, j]) * (float(x[b, 2 * g + j, s]) -
                                        float(mean[g, j])) for j in range(2))
        tol = 1e-2 if dtype == numpy.float16 else 1e-6
        numpy.testing.assert_allclose(y.array, expected, rtol=tol, atol=tol)

    def test_backward_and_double_backward(self):
        args = self._args()
        rng = numpy.random.RandomState(10)
        gy = rng.randn(*args[0].shape)
        ggs = tuple(rng.randn(*a.shape) for a in args)

        def f(x, mean, proj):
            return F.fixed_decorrelated_batch_normalization(x, mean, proj,
                                                            groups=3)

        gradient_check.check_backward(f, args, gy)
        gradient_check.check_double_backward(f, args, gy, ggs)

    def test_inverts_the_batch_version_with_its_statistics(self):
        # with the batch's own mean and ZCA matrix it gives the same output
        x = _x((30, 4), seed=11)
        _, mu, W = _reference(x, 2, 2e-5)
        numpy.testing.assert_allclose(
            F.fixed_decorrelated_batch_normalization(x, mu, W,
                                                     groups=2).array,
            F.decorrelated_batch_normalization(x, groups=2).array,
            rtol=1e-6, atol=1e-8)

    def test_errors(self):
        x, mean, proj = self._args()
        with pytest.raises(type_check.InvalidType,
                           match='FixedDecorrelatedBatchNormalization'):
            F.fixed_decorrelated_batch_normalization(x, mean[:2], proj,
                                                     groups=3)
        with pytest.raises(type_check.InvalidType, match='projection'):
            F.fixed_decorrelated_batch_normalization(x, mean, proj[:, :1],
                                                     groups=3)
        with pytest.raises(type_check.InvalidType, match='dtype'):
            F.fixed_decorrelated_batch_normalization(
                x, mean.astype(numpy.float32), proj, groups=3)


def test_module_names():
    for name in ('DecorrelatedBatchNormalization',
                 'DecorrelatedBatchNormalizationGrad',
                 'FixedDecorrelatedBatchNormalization',
                 'FixedDecorrelatedBatchNormalizationGrad'):
        assert issubclass(getattr(dbn_module, name), cpuframe.FunctionNode)
    assert dbn_module.decorrelated_batch_normalization is \
        F.decorrelated_batch_normalization
