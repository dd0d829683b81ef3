import numpy
import pytest

import cpuframe.functions as F
from cpuframe.utils import type_check


def _reference(y, t):
    hits = total = 0
    for score, label in zip(y.ravel(), t.ravel()):
        if label == -1:
            continue
        total += 1
        hits += int((1 if score >= 0 else 0) == label)
    return hits / total if total else 0.0


@pytest.mark.parametrize('shape', [(10,), (4, 3), (2, 3, 2)])
@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
def test_forward(shape, dtype):
    rng = numpy.random.RandomState(0)
    y = rng.uniform(-1, 1, shape).astype(dtype)
    y.ravel()[0] = 0  # the boundary counts as positive
    t = rng.randint(-1, 2, shape).astype(numpy.int32)
    acc = F.binary_accuracy(y, t)
    assert acc.shape == () and acc.dtype == dtype
    numpy.testing.assert_allclose(acc.array, _reference(y, t), rtol=1e-6)


def test_all_ignored_is_zero():
    acc = F.binary_accuracy(numpy.ones((2, 2)), numpy.full((2, 2), -1, 'i'))
    assert float(acc.array) == 0.0


def test_chainer_example():
    y = numpy.array([[-2.0, 0.0], [3.0, -5.0]])
    assert float(F.binary_accuracy(y, numpy.array([[0, 1], [1, 0]], 'i'))
                 .array) == 1.0
    assert float(F.binary_accuracy(y, numpy.array([[0, 0], [1, 1]], 'i'))
                 .array) == 0.5


@pytest.mark.parametrize('y,t', [
    (numpy.zeros((3, 4), 'f'), numpy.zeros((3, 4), 'f')),
    (numpy.zeros((3, 4), 'i'), numpy.zeros((3, 4), 'i')),
    (numpy.zeros((3, 4), 'f'), numpy.zeros((3,), 'i')),
])
def test_bad_input(y, t):
    with pytest.raises(type_check.InvalidType, match='BinaryAccuracy'):
        F.binary_accuracy(y, t)
