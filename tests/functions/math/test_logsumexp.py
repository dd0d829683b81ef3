import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


def _ref(x, axis):
    return numpy.log(numpy.sum(numpy.exp(x.astype(numpy.float64)), axis=axis))


CASES = [((3, 4), None), ((3, 4), 0), ((3, 4), -1), ((2, 3, 4), (0, 2)),
         ((), None), ((5,), 0)]


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('shape,axis', CASES)
def test_forward_backward(dtype, shape, axis):
    rng = numpy.random.RandomState(0)
    x = rng.uniform(-2, 2, shape).astype(dtype)
    y = F.logsumexp(x, axis)
    exp = _ref(x, axis)
    assert y.dtype == dtype and y.shape == exp.shape
    numpy.testing.assert_allclose(y.array, exp, rtol=1e-5)
    x64 = x.astype(numpy.float64)
    gy = rng.uniform(-1, 1, exp.shape)
    gradient_check.check_backward(lambda x: F.logsumexp(x, axis), x64, gy)
    gradient_check.check_double_backward(
        lambda x: F.logsumexp(x, axis), x64, gy, rng.uniform(-1, 1, shape))


def test_large_values_stable():
    y = F.logsumexp(numpy.array([1000., 1000.], numpy.float32))
    numpy.testing.assert_allclose(y.array, 1000 + numpy.log(2), rtol=1e-6)


def test_bad_inputs():
    with pytest.raises(type_check.InvalidType, match='LogSumExp'):
        F.logsumexp(numpy.zeros(3, numpy.int32))
    with pytest.raises(type_check.InvalidType, match='logsumexp'):
        F.logsumexp(numpy.zeros(3, numpy.float32), axis=2)
