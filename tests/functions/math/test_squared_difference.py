import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('shape', [(3, 2), ()])
def test_forward_backward(dtype, shape):
    rng = numpy.random.RandomState(0)
    a = numpy.asarray(rng.uniform(-1, 1, shape)).astype(dtype)
    b = numpy.asarray(rng.uniform(-1, 1, shape)).astype(dtype)
    y = F.squared_difference(a, b)
    expected = numpy.array([(float(p) - float(q)) ** 2
                            for p, q in zip(a.ravel(), b.ravel())])
    assert y.dtype == dtype and y.shape == shape
    numpy.testing.assert_allclose(y.array.ravel(), expected, rtol=1e-6)
    a64, b64 = a.astype(numpy.float64), b.astype(numpy.float64)
    gy = numpy.asarray(rng.uniform(-1, 1, shape))
    gradient_check.check_backward(F.squared_difference, (a64, b64), gy)
    gradient_check.check_double_backward(
        F.squared_difference, (a64, b64), gy,
        (numpy.asarray(rng.uniform(-1, 1, shape)),
         numpy.asarray(rng.uniform(-1, 1, shape))))


def test_bad_inputs():
    with pytest.raises(type_check.InvalidType, match='SquaredDifference'):
        F.squared_difference(numpy.zeros((2, 3)), numpy.zeros((3, 2)))
    with pytest.raises(type_check.InvalidType, match='SquaredDifference'):
        F.squared_difference(numpy.zeros(3), numpy.zeros(3, numpy.float32))
    with pytest.raises(type_check.InvalidType, match='SquaredDifference'):
        F.squared_difference(numpy.zeros(3, numpy.int32),
                             numpy.zeros(3, numpy.int32))
