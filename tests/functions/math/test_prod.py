import itertools

import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


def _naive(x, axis, keepdims):
    if axis is None:
        axis = tuple(range(x.ndim))
    elif isinstance(axis, int):
        axis = (axis,)
    axis = tuple(a % x.ndim for a in axis)
    out_shape = tuple(1 if a in axis else s for a, s in enumerate(x.shape))
    out = numpy.ones(out_shape, numpy.float64)
    for idx in itertools.product(*[range(s) for s in x.shape]):
        o = tuple(0 if a in axis else i for a, i in enumerate(idx))
        out[o] *= x[idx]
    if not keepdims:
        out = out.reshape([s for a, s in enumerate(x.shape) if a not in axis])
    return out


CASES = [((3, 4), None, False), ((3, 4), 0, False), ((3, 4), -1, True),
         ((2, 3, 2), (0, 2), False), ((4,), 0, False), ((), None, False),
         ((2, 3), (), False)]


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('shape,axis,keepdims', CASES)
def test_forward_backward(dtype, shape, axis, keepdims):
    rng = numpy.random.RandomState(0)
    x = numpy.asarray(rng.uniform(0.5, 1.5, shape) *
                      rng.choice([-1, 1], shape)).astype(dtype)
    y = F.prod(x, axis, keepdims)
    exp = _naive(x, axis, keepdims)
    assert y.dtype == dtype and y.shape == exp.shape
    numpy.testing.assert_allclose(y.array, exp, rtol=1e-5)
    x64 = x.astype(numpy.float64)
    gy = rng.uniform(-1, 1, exp.shape)
    f = lambda x: F.prod(x, axis, keepdims)  # noqa: E731
    gradient_check.check_backward(f, x64, gy)
    gradient_check.check_double_backward(f, x64, gy,
                                         rng.uniform(-1, 1, shape))


@pytest.mark.parametrize('axis', [None, 0, 1])
def test_with_zeros(axis):
    # prod is a polynomial: finite differences are exact enough at zeros
    x = numpy.array([[0.0, 2.0, 3.0], [0.0, 0.0, 1.5]])
    gy = numpy.ones(numpy.prod(x, axis=axis).shape)
    gradient_check.check_backward(lambda x: F.prod(x, axis), x, gy)
    gradient_check.check_double_backward(
        lambda x: F.prod(x, axis), x, gy, numpy.ones_like(x) * 0.5)


def test_bad_inputs():
    with pytest.raises(type_check.InvalidType, match='Prod'):
        F.prod(numpy.zeros(3, numpy.int32))
    with pytest.raises(type_check.InvalidType, match='prod'):
        F.prod(numpy.zeros((2, 3)), axis=2)
