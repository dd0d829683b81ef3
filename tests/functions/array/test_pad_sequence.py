import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


def _naive(xs, length, padding):
    n = max(len(x) for x in xs) if length is None else length
    out = numpy.full((len(xs), n) + xs[0].shape[1:], padding, xs[0].dtype)
    for i, x in enumerate(xs):
        for t in range(len(x)):
            out[i, t] = x[t]
    return out


CASES = [([3, 1, 2], (), None, 0), ([2, 2], (3,), 4, -1.5),
         ([1, 3], (2, 1), None, 2), ([0, 2], (), 3, 0)]


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('lens,tail,length,padding', CASES)
def test_forward_backward(dtype, lens, tail, length, padding):
    rng = numpy.random.RandomState(0)
    xs = [rng.uniform(-1, 1, (n,) + tail).astype(dtype) for n in lens]
    y = F.pad_sequence(xs, length, padding)
    exp = _naive(xs, length, padding)
    assert y.dtype == dtype and y.shape == exp.shape
    numpy.testing.assert_array_equal(y.array, exp)
    gy = rng.uniform(-1, 1, exp.shape)
    xs64 = [x.astype(numpy.float64) for x in xs]
    gradient_check.check_backward(
        lambda *a: F.pad_sequence(a, length, padding), tuple(xs64), gy)
    ggx = tuple(rng.uniform(-1, 1, x.shape) for x in xs64)
    gradient_check.check_double_backward(
        lambda *a: F.pad_sequence(a, length, padding) ** 2, tuple(xs64), gy,
        ggx)


def test_bad_inputs():
    a = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(type_check.InvalidType, match='PadSequence'):
        F.pad_sequence([a, numpy.zeros((2, 4), numpy.float32)])
    with pytest.raises(type_check.InvalidType, match='PadSequence'):
        F.pad_sequence([a, numpy.zeros((2, 3), numpy.float64)])
    with pytest.raises(ValueError, match='pad_sequence'):
        F.pad_sequence([a], length=1)
