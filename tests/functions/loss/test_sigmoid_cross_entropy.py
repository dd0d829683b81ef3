import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

SHAPES = [(4, 3), (2, 3, 2), (5,)]


def _data(rng, shape, dtype=numpy.float64):
    x = rng.uniform(-3, 3, shape).astype(dtype)
    t = rng.randint(-1, 2, shape).astype(numpy.int32)
    return x, t


def _reference(x, t, normalize, reduce):
    x = x.astype(numpy.float64).ravel()
    flat_t = t.ravel()
    losses = numpy.zeros(x.size)
    count = 0
    for i in range(x.size):
        if flat_t[i] == -1:
            continue
        count += 1
        p = 1 / (1 + numpy.exp(-x[i]))
        losses[i] = -(flat_t[i] * numpy.log(p) +
                      (1 - flat_t[i]) * numpy.log(1 - p))
    if reduce == 'no':
        return losses.reshape(t.shape)
    denom = count if normalize else len(t)
    return losses.sum() / max(denom, 1)


@pytest.mark.parametrize('shape', SHAPES)
@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('normalize', [True, False])
@pytest.mark.parametrize('reduce', ['mean', 'no'])
def test_forward(shape, dtype, normalize, reduce):
    x, t = _data(numpy.random.RandomState(0), shape, dtype)
    y = F.sigmoid_cross_entropy(x, t, normalize=normalize, reduce=reduce)
    assert y.dtype == dtype
    assert y.shape == (() if reduce == 'mean' else shape)
    tol = 1e-5 if dtype == numpy.float32 else 1e-12
    numpy.testing.assert_allclose(y.array, _reference(x, t, normalize, reduce),
                                  rtol=tol, atol=tol)


def test_stable_for_large_scores():
    x = numpy.array([800., -800., 800.], numpy.float32)
    t = numpy.array([1, 0, 0], numpy.int32)
    y = F.sigmoid_cross_entropy(x, t, reduce='no')
    numpy.testing.assert_allclose(y.array, [0., 0., 800.], atol=1e-6)


def test_all_ignored():
    x = cpuframe.Variable(numpy.ones((2, 3)))
    y = F.sigmoid_cross_entropy(x, numpy.full((2, 3), -1, numpy.int32))
    assert float(y.array) == 0.0
    y.backward()
    assert (x.grad == 0).all()


@pytest.mark.parametrize('shape', SHAPES)
@pytest.mark.parametrize('normalize', [True, False])
@pytest.mark.parametrize('reduce', ['mean', 'no'])
def test_backward(shape, normalize, reduce):
    rng = numpy.random.RandomState(1)
    x, t = _data(rng, shape)
    gy = None if reduce == 'mean' else rng.randn(*shape)

    def f(x):
        return F.sigmoid_cross_entropy(x, t, normalize, reduce)
    gradient_check.check_backward(f, x, gy, atol=1e-7, rtol=1e-5)


def test_backward_float32():
    rng = numpy.random.RandomState(2)
    x, t = _data(rng, (3, 4), numpy.float32)
    gradient_check.check_backward(
        lambda x: F.sigmoid_cross_entropy(x, t), x, None,
        dtype=numpy.float64, atol=1e-3, rtol=1e-3)


@pytest.mark.parametrize('normalize', [True, False])
@pytest.mark.parametrize('reduce', ['mean', 'no'])
def test_double_backward(normalize, reduce):
    rng = numpy.random.RandomState(3)
    x, t = _data(rng, (3, 4))
    gy = numpy.asarray(rng.randn(*(() if reduce == 'mean' else (3, 4))))

    def f(x):
        return F.sigmoid_cross_entropy(x, t, normalize, reduce)
    gradient_check.check_double_backward(f, x, gy, rng.randn(3, 4),
                                         atol=1e-7, rtol=1e-5)


@pytest.mark.parametrize('t', [numpy.zeros((3, 4), numpy.float32),
                               numpy.zeros((3, 5), numpy.int32),
                               numpy.zeros((3,), numpy.int32)])
def test_bad_labels(t):
    with pytest.raises(type_check.InvalidType, match='SigmoidCrossEntropy'):
        F.sigmoid_cross_entropy(numpy.zeros((3, 4), numpy.float32), t)


def test_invalid_reduce():
    with pytest.raises(ValueError, match='sigmoid_cross_entropy') as e:
        F.sigmoid_cross_entropy(numpy.zeros((3, 4)), numpy.zeros((3, 4), 'i'),
                                reduce='sum')
    assert "'mean' and 'no'" in str(e.value)
