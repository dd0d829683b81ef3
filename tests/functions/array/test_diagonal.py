import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


def _naive(x, offset, a1, a2):
    x = numpy.moveaxis(x, (a1, a2), (-2, -1))
    out = []
    for i in range(x.shape[-2]):
        j = i + offset
        if 0 <= j < x.shape[-1]:
            out.append(x[..., i, j])
    if not out:
        return numpy.zeros(x.shape[:-2] + (0,))
    return numpy.stack(out, axis=-1)


@pytest.mark.parametrize('shape,offset,a1,a2', [
    ((3, 4), 0, 0, 1), ((3, 4), 1, 0, 1), ((4, 3), -2, 0, 1),
    ((2, 3, 4), 0, 1, 2), ((2, 3, 4), -1, 2, 0), ((3, 2, 3), 1, -1, 0),
    ((2, 2), 5, 0, 1)])
def test_forward_backward(shape, offset, a1, a2):
    rng = numpy.random.RandomState(0)
    x = rng.uniform(-1, 1, shape)
    y = F.diagonal(x.astype(numpy.float32), offset, a1, a2)
    exp = _naive(x, offset, a1, a2)
    assert y.dtype == numpy.float32 and y.shape == exp.shape
    numpy.testing.assert_allclose(y.array, exp, rtol=1e-6)
    gy = rng.uniform(-1, 1, exp.shape)
    f = lambda x: F.diagonal(x, offset, a1, a2)  # noqa: E731
    gradient_check.check_backward(f, x, gy)
    gradient_check.check_double_backward(
        lambda x: f(x) ** 2, x, gy, rng.uniform(-1, 1, shape))


def test_bad_inputs():
    with pytest.raises(type_check.InvalidType, match='Diagonal'):
        F.diagonal(numpy.zeros(3))
    with pytest.raises(type_check.InvalidType, match='Diagonal'):
        F.diagonal(numpy.zeros((2, 3)), 0, 0, 2)
    with pytest.raises(ValueError, match='diagonal'):
        F.diagonal(numpy.zeros((2, 3)), 0, 1, -1)
