import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

DTYPES = [numpy.float32, numpy.float64]


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


def _input(shape, dtype, z, seed=0):
    x = numpy.random.RandomState(seed).uniform(-1, z + 1, shape)
    x[numpy.abs(x) < 0.1] = 0.5
    x[numpy.abs(x - z) < 0.1] = z / 2
    return x.astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('z', [20.0, 0.75, 3])
@pytest.mark.parametrize('shape', [(3, 4), ()])
def test_forward(dtype, z, shape):
    x = _input(shape, dtype, z)
    y = F.clipped_relu(x, z)
    assert y.dtype == dtype and y.shape == shape
    flat = [min(max(v, 0.0), z) for v in x.astype(numpy.float64).ravel()]
    numpy.testing.assert_allclose(y.array, numpy.array(flat).reshape(shape),
                                  rtol=1e-6)


def test_default_cap():
    y = F.clipped_relu(numpy.array([-1.0, 5.0, 25.0]))
    numpy.testing.assert_array_equal(y.array, [0.0, 5.0, 20.0])


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('z', [20.0, 0.75])
def test_backward(dtype, z):
    x = _input((3, 4), dtype, z)
    gy = numpy.random.RandomState(1).uniform(-1, 1, x.shape).astype(dtype)
    gradient_check.check_backward(lambda x: F.clipped_relu(x, z), x, gy,
                                  **_tols(dtype))


def test_double_backward():
    rng = numpy.random.RandomState(2)
    x = _input((3, 4), numpy.float64, 0.75)
    gy, ggx = rng.uniform(-1, 1, (2, 3, 4))
    gradient_check.check_double_backward(
        lambda x: F.clipped_relu(x, 0.75), x, gy, ggx)


def test_bad_z_is_rejected():
    with pytest.raises(TypeError, match='clipped_relu'):
        F.clipped_relu(numpy.zeros(2), z='20')


def test_int_input_is_rejected():
    with pytest.raises(type_check.InvalidType, match='(?s)ClippedReLU.*Expect'):
        F.clipped_relu(numpy.arange(3))
