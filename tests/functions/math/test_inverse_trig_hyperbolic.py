import math

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

FUNCS = [
    pytest.param(F.arcsin, math.asin, (-0.8, 0.8), id='arcsin'),
    pytest.param(F.arccos, math.acos, (-0.8, 0.8), id='arccos'),
    pytest.param(F.arctan, math.atan, (-3.0, 3.0), id='arctan'),
    pytest.param(F.sinh, math.sinh, (-2.0, 2.0), id='sinh'),
    pytest.param(F.cosh, math.cosh, (-2.0, 2.0), id='cosh'),
]


@pytest.mark.parametrize('func,ref,bounds', FUNCS)
@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('shape', [(3, 2), ()])
def test_forward_backward(func, ref, bounds, dtype, shape):
    rng = numpy.random.RandomState(0)
    x = numpy.asarray(rng.uniform(*bounds, shape)).astype(dtype)
    y = func(cpuframe.Variable(x))
    assert isinstance(y.array, numpy.ndarray)
    assert y.dtype == dtype and y.shape == shape
    exp = numpy.array([ref(float(v)) for v in x.ravel()]).reshape(shape)
    numpy.testing.assert_allclose(y.array, exp, rtol=1e-6, atol=1e-6)
    x64 = x.astype(numpy.float64)
    gy = numpy.asarray(rng.uniform(-1, 1, shape))
    gradient_check.check_backward(func, x64, gy)
    gradient_check.check_double_backward(
        func, x64, gy, numpy.asarray(rng.uniform(-1, 1, shape)))


@pytest.mark.parametrize('func,label', [(F.arcsin, 'Arcsin'),
                                        (F.arccos, 'Arccos'),
                                        (F.arctan, 'Arctan'),
                                        (F.sinh, 'Sinh'), (F.cosh, 'Cosh')])
def test_bad_inputs(func, label):
    with pytest.raises(type_check.InvalidType, match=label):
        func(numpy.zeros(3, numpy.int32))
