import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check

CASES = [((3, 4), None, None, False), ((3, 4), 0, None, True),
         ((2, 3, 4), (0, 2), None, False),
         ((3, 4), 1, (4,), False), ((3, 4), -2, (3,), True),
         ((3, 4), None, (3, 4), False), ((2, 3, 2), (1, 2), (2, 3, 2), True),
         ((5,), 0, (5,), False)]


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('shape,axis,wshape,keepdims', CASES)
def test_forward_backward(dtype, shape, axis, wshape, keepdims):
    rng = numpy.random.RandomState(0)
    x = rng.uniform(-1, 1, shape).astype(dtype)
    w = None if wshape is None else rng.uniform(0.5, 1.5, wshape).astype(dtype)
    y = F.average(x, axis, w, keepdims)
    exp = numpy.average(x.astype(numpy.float64), axis, w)
    if keepdims:
        exp = numpy.mean(x, axis, keepdims=True) * 0 + exp.reshape(
            numpy.mean(x, axis, keepdims=True).shape)
    assert y.dtype == dtype and y.shape == numpy.shape(exp)
    numpy.testing.assert_allclose(y.array, exp, rtol=1e-5)
    x64 = x.astype(numpy.float64)
    gy = rng.uniform(-1, 1, numpy.shape(exp))
    if w is None:
        f = lambda x: F.average(x, axis, None, keepdims)  # noqa: E731
        args, ggx = x64, rng.uniform(-1, 1, shape)
    else:
        f = lambda x, w: F.average(x, axis, w, keepdims)  # noqa: E731
        args = (x64, w.astype(numpy.float64))
        ggx = (rng.uniform(-1, 1, shape), rng.uniform(-1, 1, wshape))
    gradient_check.check_backward(f, args, gy)
    gradient_check.check_double_backward(f, args, gy, ggx)


def test_bad_inputs():
    x = numpy.zeros((3, 4))
    with pytest.raises(ValueError, match='average'):
        F.average(x, None, numpy.ones(4))
    with pytest.raises(ValueError, match='average'):
        F.average(x, 0, numpy.ones(4))
    with pytest.raises(ValueError, match='average'):
        F.average(x, (0, 1), numpy.ones(3))
    with pytest.raises(TypeError, match='average'):
        F.average(numpy.zeros(3, numpy.int32))
    with pytest.raises(TypeError, match='average'):
        F.average(x, 1, numpy.ones(4, numpy.float32))
