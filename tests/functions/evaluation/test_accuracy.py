import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe.utils import type_check


def _reference(y, t, ignore_label):
    n_class = y.shape[1]
    rows = numpy.moveaxis(y.reshape(y.shape[:t.ndim + 1]), 1, -1).reshape(
        -1, n_class)
    hits = total = 0
    for row, label in zip(rows, t.ravel()):
        if ignore_label is not None and label == ignore_label:
            continue
        total += 1
        best = max(range(n_class), key=lambda c: (row[c], -c))
        hits += int(best == label)
    return hits / total if total else 0.0


@pytest.mark.parametrize('y_shape,t_shape', [
    ((10, 3), (10,)), ((4, 3, 2, 2), (4, 2, 2)), ((5, 3, 1, 1), (5,)),
    ((4, 3, 2, 1), (4, 2))])
@pytest.mark.parametrize('ignore_label', [None, -1, 0])
@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32,
                                   numpy.float64])
def test_forward(y_shape, t_shape, ignore_label, dtype):
    rng = numpy.random.RandomState(0)
    y = rng.uniform(-1, 1, y_shape).astype(dtype)
    t = rng.randint(-1 if ignore_label == -1 else 0, 3, t_shape).astype(
        numpy.int32)
    acc = F.accuracy(y, t, ignore_label=ignore_label)
    assert acc.shape == () and acc.dtype == dtype
    numpy.testing.assert_allclose(acc.array, _reference(y, t, ignore_label),
                                  rtol=1e-3)


def test_all_ignored_is_zero():
    y = numpy.random.RandomState(1).randn(3, 4).astype(numpy.float32)
    acc = F.accuracy(y, numpy.full(3, -1, numpy.int32), ignore_label=-1)
    assert float(acc.array) == 0.0 and acc.dtype == numpy.float32


def test_not_differentiable():
    y = cpuframe.Variable(numpy.random.RandomState(2).randn(3, 4))
    t = numpy.array([0, 1, 2], numpy.int32)
    loss = F.softmax_cross_entropy(y, t) + F.accuracy(y, t)
    loss.backward()
    y2 = cpuframe.Variable(y.array.copy())
    F.softmax_cross_entropy(y2, t).backward()
    numpy.testing.assert_allclose(y.grad, y2.grad)


@pytest.mark.parametrize('y,t', [
    (numpy.zeros((3, 4), 'f'), numpy.zeros(3, 'f')),
    (numpy.zeros((3, 4), 'i'), numpy.zeros(3, 'i')),
    (numpy.zeros((3, 4), 'f'), numpy.zeros(4, 'i')),
    (numpy.zeros((3, 4, 2), 'f'), numpy.zeros((3, 3), 'i')),
    (numpy.zeros((3, 4, 2), 'f'), numpy.zeros(3, 'i')),
    (numpy.zeros((3, 4), 'f'), numpy.zeros((3, 4, 1), 'i')),
])
def test_bad_input(y, t):
    with pytest.raises(type_check.InvalidType, match='Accuracy'):
        F.accuracy(y, t)
