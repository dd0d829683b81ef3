import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


def _naive(x, axis):
    if axis is None:
        x, axis = x.ravel(), 0
    x = numpy.moveaxis(x, axis, 0)
    out = numpy.zeros_like(x)
    acc = numpy.zeros_like(x[0])
    for i in range(x.shape[0]):
        acc = acc + x[i]
        out[i] = acc
    return numpy.moveaxis(out, 0, axis)


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('shape,axis', [((3, 4), None), ((3, 4), 0),
                                        ((2, 3, 2), -1), ((4,), 0)])
def test_forward_backward(dtype, shape, axis):
    rng = numpy.random.RandomState(0)
    x = rng.uniform(-1, 1, shape).astype(dtype)
    y = F.cumsum(x, axis)
    exp = _naive(x, axis)
    assert y.dtype == dtype and y.shape == exp.shape
    numpy.testing.assert_allclose(y.array, exp, rtol=1e-5, atol=1e-6)
    x64 = x.astype(numpy.float64)
    gy = rng.uniform(-1, 1, exp.shape)
    gradient_check.check_backward(lambda x: F.cumsum(x, axis), x64, gy)
    gradient_check.check_double_backward(
        lambda x: F.cumsum(x, axis) ** 2, x64, gy, rng.uniform(-1, 1, shape))


def test_bad_inputs():
    with pytest.raises(type_check.InvalidType, match='Cumsum'):
        F.cumsum(numpy.zeros((2, 3)), 2)
    with pytest.raises(type_check.InvalidType, match='Cumsum'):
        F.cumsum(numpy.zeros(3, numpy.int32))
    with pytest.raises(TypeError, match='cumsum'):
        F.cumsum(numpy.zeros(3), (0,))
