import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


def _reference(x0, x1, y, margin, reduce):
    n = len(x0)
    out = numpy.zeros(n)
    for i in range(n):
        d = numpy.sqrt(sum((float(a) - float(b)) ** 2
                           for a, b in zip(x0[i], x1[i])))
        if y[i] == 1:
            out[i] = 0.5 * d * d
        else:
            out[i] = 0.5 * max(margin - d, 0) ** 2
    return out.sum() / n if reduce == 'mean' else out


def _inputs(rng, margin, dtype=numpy.float64):
    x0 = rng.uniform(-1, 1, (6, 3)).astype(dtype)
    x1 = rng.uniform(-1, 1, (6, 3)).astype(dtype)
    # keep the distances away from the margin, where the loss has a kink
    d = numpy.sqrt(((x0 - x1) ** 2).sum(axis=1))
    x1[abs(d - margin) < 0.1] += 0.3
    y = numpy.array([1, 0, 1, 0, 0, 1], numpy.int32)
    return x0, x1, y


@pytest.mark.parametrize('margin', [1, 2.5])
@pytest.mark.parametrize('reduce', ['mean', 'no'])
@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
def test_forward(margin, reduce, dtype):
    x0, x1, y = _inputs(numpy.random.RandomState(0), margin, dtype)
    loss = F.contrastive(x0, x1, y, margin, reduce)
    expected = _reference(x0, x1, y, margin, reduce)
    assert loss.dtype == dtype and loss.shape == numpy.shape(expected)
    tol = 1e-5 if dtype == numpy.float32 else 1e-12
    numpy.testing.assert_allclose(loss.array, expected, rtol=tol)


def test_chainer_example():
    x0 = numpy.array([[-2., 3., 0.5], [5., 2., -0.5]], numpy.float32)
    x1 = numpy.array([[-1., 3., 1.], [3.5, 0.5, -2.]], numpy.float32)
    y = numpy.array([1, 0], numpy.int32)
    numpy.testing.assert_allclose(F.contrastive(x0, x1, y).array, 0.3125)
    numpy.testing.assert_allclose(F.contrastive(x0, x1, y, margin=3.).array,
                                  0.3528857, rtol=1e-6)


@pytest.mark.parametrize('margin', [1, 2.5])
@pytest.mark.parametrize('reduce', ['mean', 'no'])
def test_backward_and_double_backward(margin, reduce):
    rng = numpy.random.RandomState(1)
    x0, x1, y = _inputs(rng, margin)
    gy = numpy.asarray(rng.randn() if reduce == 'mean' else rng.randn(6))

    def f(x0, x1):
        return F.contrastive(x0, x1, y, margin, reduce)
    gradient_check.check_backward(f, (x0, x1), gy, atol=1e-7, rtol=1e-5)
    gradient_check.check_double_backward(
        f, (x0, x1), gy, (rng.randn(6, 3), rng.randn(6, 3)), atol=1e-7,
        rtol=1e-5)


def test_backward_float32():
    x0, x1, y = _inputs(numpy.random.RandomState(2), 1, numpy.float32)
    gradient_check.check_backward(lambda a, b: F.contrastive(a, b, y),
                                  (x0, x1), None, dtype=numpy.float64,
                                  atol=1e-3, rtol=1e-3)


def test_identical_pair_has_finite_gradient():
    import cpuframe
    x0 = cpuframe.Variable(numpy.ones((2, 3)))
    x1 = cpuframe.Variable(numpy.ones((2, 3)))
    F.contrastive(x0, x1, numpy.array([0, 1], numpy.int32)).backward()
    assert (x0.grad == 0).all() and (x1.grad == 0).all()


@pytest.mark.parametrize('x0,x1,y', [
    (numpy.zeros((2, 3), 'f'), numpy.zeros((2, 4), 'f'), numpy.zeros(2, 'i')),
    (numpy.zeros((2, 3), 'f'), numpy.zeros((2, 3), 'd'), numpy.zeros(2, 'i')),
    (numpy.zeros((2, 3), 'f'), numpy.zeros((2, 3), 'f'), numpy.zeros(3, 'i')),
    (numpy.zeros((2, 3), 'f'), numpy.zeros((2, 3), 'f'), numpy.zeros(2, 'f')),
    (numpy.zeros((0, 3), 'f'), numpy.zeros((0, 3), 'f'), numpy.zeros(0, 'i')),
    (numpy.zeros(3, 'f'), numpy.zeros(3, 'f'), numpy.zeros(3, 'i')),
])
def test_bad_input(x0, x1, y):
    with pytest.raises(type_check.InvalidType, match='Contrastive'):
        F.contrastive(x0, x1, y)


def test_invalid_options():
    args = (numpy.zeros((2, 3)), numpy.zeros((2, 3)), numpy.zeros(2, 'i'))
    with pytest.raises(ValueError, match='contrastive.*margin'):
        F.contrastive(*args, margin=0)
    with pytest.raises(ValueError, match="contrastive.*'mean' and 'no'"):
        F.contrastive(*args, reduce='sum')
