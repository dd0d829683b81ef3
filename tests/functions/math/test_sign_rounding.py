import math
import numpy
import pytest

import cpuframe
import cpuframe.functions as F

FUNCS = [(F.sign, numpy.sign), (F.floor, numpy.floor), (F.ceil, numpy.ceil),
         (F.fix, math.trunc)]  # (numpy.fix is deprecated in NumPy 2.5)


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('func,ref', FUNCS)
@pytest.mark.parametrize('shape', [(3, 4), ()])
def test_forward(dtype, func, ref, shape):
    x = numpy.asarray(numpy.random.RandomState(0).uniform(-3, 3, shape)
                      ).astype(dtype)
    y = func(cpuframe.Variable(x))
    assert isinstance(y, cpuframe.Variable)
    assert isinstance(y.array, numpy.ndarray)
    assert y.dtype == dtype and y.shape == shape
    expected = numpy.array([ref(float(v)) for v in x.ravel()]).reshape(shape)
    numpy.testing.assert_array_equal(y.array, expected)


@pytest.mark.parametrize('func,ref', FUNCS)
def test_no_gradient(func, ref):
    x = cpuframe.Variable(numpy.array([-1.5, 0.5, 2.0]))
    y = func(x)
    assert y.creator is None and not y.requires_grad
    z = F.sum(x * 2.0 + y)
    z.backward()
    numpy.testing.assert_array_equal(x.grad, [2.0, 2.0, 2.0])


def test_sign_int_and_zero():
    y = F.sign(numpy.array([-3, 0, 5], numpy.int32))
    assert y.dtype == numpy.int32
    numpy.testing.assert_array_equal(y.array, [-1, 0, 1])


@pytest.mark.parametrize('name', ['floor', 'ceil', 'fix'])
def test_bad_inputs(name):
    with pytest.raises(TypeError, match=name):
        getattr(F, name)(numpy.array([1, 2], numpy.int32))
    with pytest.raises(TypeError, match=name):
        getattr(F, name)([1.0])
    with pytest.raises(TypeError, match='sign'):
        F.sign([1.0])
