import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('shape', [(3, 2), ()])
def test_forward_backward(dtype, shape):
    rng = numpy.random.RandomState(0)
    p, x, y = (numpy.asarray(rng.uniform(-1, 1, shape)).astype(dtype)
               for _ in range(3))
    out = F.linear_interpolate(p, x, y)
    expected = numpy.array([float(a) * float(b) + (1 - float(a)) * float(c)
                            for a, b, c in zip(p.ravel(), x.ravel(),
                                               y.ravel())])
    assert out.dtype == dtype and out.shape == shape
    numpy.testing.assert_allclose(out.array.ravel(), expected, rtol=1e-5,
                                  atol=1e-6)
    ins = tuple(a.astype(numpy.float64) for a in (p, x, y))
    gy = numpy.asarray(rng.uniform(-1, 1, shape))
    gradient_check.check_backward(F.linear_interpolate, ins, gy)
    gradient_check.check_double_backward(
        F.linear_interpolate, ins, gy,
        tuple(numpy.asarray(rng.uniform(-1, 1, shape)) for _ in range(3)))


def test_bad_inputs():
    z = numpy.zeros((2, 3))
    with pytest.raises(type_check.InvalidType, match='LinearInterpolate'):
        F.linear_interpolate(z, z, numpy.zeros((3, 2)))
    with pytest.raises(type_check.InvalidType, match='LinearInterpolate'):
        F.linear_interpolate(z, z.astype(numpy.float32), z)
    with pytest.raises(type_check.InvalidType, match='LinearInterpolate'):
        i = numpy.zeros((2, 3), numpy.int32)
        F.linear_interpolate(i, i, i)
