import itertools

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


def _naive_det(a):
    """Leibniz formula: sum over permutations of signed products."""
    n = a.shape[0]
    total = 0.0
    for perm in itertools.permutations(range(n)):
        inversions = sum(1 for i in range(n) for j in range(i + 1, n)
                         if perm[i] > perm[j])
        prod = 1.0
        for i, p in enumerate(perm):
            prod *= float(a[i, p])
        total += (-1) ** inversions * prod
    return total


def _well_conditioned(shape, seed, dtype=numpy.float64):
    rng = numpy.random.RandomState(seed)
    n = shape[-1]
    return (rng.uniform(-1, 1, shape) + 2 * numpy.eye(n)).astype(dtype)


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('n', [1, 2, 3, 4])
def test_det_forward(dtype, n):
    a = _well_conditioned((n, n), n, dtype)
    y = F.det(a)
    assert y.shape == () and y.dtype == dtype
    numpy.testing.assert_allclose(y.array, _naive_det(a), rtol=1e-5)


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('m,n', [(1, 1), (3, 2), (2, 4)])
def test_batch_det_forward(dtype, m, n):
    a = _well_conditioned((m, n, n), n, dtype)
    y = F.batch_det(a)
    assert y.shape == (m,) and y.dtype == dtype
    numpy.testing.assert_allclose(y.array, [_naive_det(ai) for ai in a],
                                  rtol=1e-5)


@pytest.mark.parametrize('n', [1, 2, 3])
def test_det_backward(n):
    rng = numpy.random.RandomState(n)
    a = _well_conditioned((n, n), n + 10)
    gy = numpy.array(rng.uniform(-1, 1))
    gradient_check.check_backward(F.det, (a,), gy)
    gradient_check.check_double_backward(F.det, (a,), gy,
                                         (rng.uniform(-1, 1, (n, n)),))


def test_det_gradient_is_det_times_inverse_transpose():
    a = _well_conditioned((3, 3), 7)
    v = cpuframe.Variable(a)
    F.det(v).backward()
    numpy.testing.assert_allclose(
        v.grad, numpy.linalg.det(a) * numpy.linalg.inv(a).T, rtol=1e-10)


@pytest.mark.parametrize('m,n', [(2, 2), (3, 3)])
def test_batch_det_backward(m, n):
    rng = numpy.random.RandomState(m * n)
    a = _well_conditioned((m, n, n), 3)
    gy = rng.uniform(-1, 1, (m,))
    gradient_check.check_backward(F.batch_det, (a,), gy)
    gradient_check.check_double_backward(F.batch_det, (a,), gy,
                                         (rng.uniform(-1, 1, a.shape),))


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('n', [1, 2, 4])
def test_inv_forward(dtype, n):
    a = _well_conditioned((n, n), n, dtype)
    y = F.inv(a)
    assert y.shape == (n, n) and y.dtype == dtype
    tol = 1e-4 if dtype == numpy.float32 else 1e-10
    numpy.testing.assert_allclose(y.array @ a, numpy.eye(n), atol=tol)


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
def test_batch_inv_forward(dtype):
    a = _well_conditioned((3, 3, 3), 0, dtype)
    y = F.batch_inv(a)
    assert y.shape == a.shape and y.dtype == dtype
    tol = 1e-4 if dtype == numpy.float32 else 1e-10
    for yi, ai in zip(y.array, a):
        numpy.testing.assert_allclose(ai @ yi, numpy.eye(3), atol=tol)


@pytest.mark.parametrize('fn,shape', [(F.inv, (3, 3)), (F.inv, (1, 1)),
                                      (F.batch_inv, (2, 3, 3))])
def test_inv_backward(fn, shape):
    rng = numpy.random.RandomState(1)
    a = _well_conditioned(shape, 2)
    gy = rng.uniform(-1, 1, shape)
    gradient_check.check_backward(fn, (a,), gy)
    gradient_check.check_double_backward(fn, (a,), gy,
                                         (rng.uniform(-1, 1, shape),))


def test_inv_gradient_formula():
    a = _well_conditioned((3, 3), 5)
    gy = numpy.random.RandomState(0).uniform(-1, 1, (3, 3))
    v = cpuframe.Variable(a)
    y = F.inv(v)
    y.grad = gy
    y.backward()
    ai = numpy.linalg.inv(a)
    numpy.testing.assert_allclose(v.grad, -ai.T @ gy @ ai.T, rtol=1e-10)


def test_singular():
    s = numpy.array([[1., 2.], [2., 4.]])
    with pytest.raises(ValueError, match='Inv.*singular'):
        F.inv(s)
    with pytest.raises(ValueError, match='BatchInv.*singular'):
        F.batch_inv(numpy.stack([numpy.eye(2), s]))
    # The determinant of a singular matrix is 0; its gradient needs the
    # inverse and raises.
    v = cpuframe.Variable(s)
    y = F.det(v)
    numpy.testing.assert_allclose(y.array, 0, atol=1e-12)
    with pytest.raises(ValueError, match='singular'):
        y.backward()


def test_bad_inputs():
    with pytest.raises(type_check.InvalidType, match='Inv'):
        F.inv(numpy.zeros((2, 3)))
    with pytest.raises(type_check.InvalidType, match='Inv'):
        F.inv(numpy.zeros((2, 2, 2)))
    with pytest.raises(type_check.InvalidType, match='Inv'):
        F.inv(numpy.eye(2, dtype=numpy.int32))
    with pytest.raises(type_check.InvalidType, match='BatchInv'):
        F.batch_inv(numpy.eye(2))
    with pytest.raises(type_check.InvalidType, match='BatchInv'):
        F.batch_inv(numpy.zeros((2, 2, 3)))
    with pytest.raises(type_check.InvalidType, match='BatchDet'):
        F.batch_det(numpy.zeros((2, 3)))
    with pytest.raises(type_check.InvalidType, match='BatchDet'):
        F.batch_det(numpy.zeros((2, 3, 2)))
    with pytest.raises(type_check.InvalidType, match='BatchDet'):
        F.batch_det(numpy.zeros((2, 2, 2), numpy.int64))
    with pytest.raises(type_check.InvalidType, match='det'):
        F.det(numpy.zeros((2, 2, 2)))
    with pytest.raises(type_check.InvalidType, match='BatchDet'):
        F.det(numpy.zeros((2, 3)))
