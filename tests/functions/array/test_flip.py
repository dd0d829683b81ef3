import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

CASES = [
    (lambda x: F.flip(x, 0), lambda x: x[::-1], (3, 2)),
    (lambda x: F.flip(x, 1), lambda x: x[:, ::-1], (3, 2, 2)),
    (lambda x: F.flip(x, -1), lambda x: x[..., ::-1], (3, 2, 4)),
    (F.fliplr, lambda x: x[:, ::-1], (2, 3)),
    (F.flipud, lambda x: x[::-1], (4,)),
]


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('func,ref,shape', CASES)
def test_forward_backward(dtype, func, ref, shape):
    rng = numpy.random.RandomState(0)
    x = rng.uniform(-1, 1, shape).astype(dtype)
    y = func(x)
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, ref(x))
    x64 = x.astype(numpy.float64)
    gy = rng.uniform(-1, 1, shape)
    gradient_check.check_backward(func, x64, gy)
    gradient_check.check_double_backward(
        lambda x: func(x) ** 2, x64, gy, rng.uniform(-1, 1, shape))


def test_bad_inputs():
    with pytest.raises(type_check.InvalidType, match='Flip'):
        F.flip(numpy.zeros((2, 3)), 2)
    with pytest.raises(type_check.InvalidType, match='Flip'):
        F.flip(numpy.zeros((2, 3)), -3)
    with pytest.raises(type_check.InvalidType, match='FlipLR'):
        F.fliplr(numpy.zeros(3))
    with pytest.raises(type_check.InvalidType, match='FlipUD'):
        F.flipud(numpy.zeros(()))
