import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check


def _naive(x, y, axis, op):
    out = numpy.empty_like(x)
    for idx in numpy.ndindex(*x.shape):
        out[idx] = op(x[idx], y[idx[axis:axis + y.ndim]])
    return out


CASES = [((2, 3, 4), (3,), 1), ((2, 3, 4), (3, 4), 1), ((2, 3, 4), (2,), 0),
         ((2, 3, 4), (4,), 2), ((2, 3), (), 1), ((2, 3), (2, 3), 0)]


@pytest.mark.parametrize('name,op', [('bias', numpy.add),
                                     ('scale', numpy.multiply)])
@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('xs,ys,axis', CASES)
def test_forward_backward(name, op, dtype, xs, ys, axis):
    func = getattr(F, name)
    rng = numpy.random.RandomState(0)
    x = rng.uniform(-1, 1, xs).astype(dtype)
    y = numpy.asarray(rng.uniform(-1, 1, ys)).astype(dtype)
    out = func(x, y, axis)
    assert out.dtype == dtype
    numpy.testing.assert_allclose(out.array, _naive(x, y, axis, op),
                                  rtol=1e-6)
    args = (x.astype(numpy.float64), y.astype(numpy.float64))
    gy = rng.uniform(-1, 1, xs)
    f = lambda x, y: func(x, y, axis)  # noqa: E731
    gradient_check.check_backward(f, args, gy)
    gradient_check.check_double_backward(
        lambda x, y: f(x, y) ** 2, args, gy,
        (rng.uniform(-1, 1, xs), numpy.asarray(rng.uniform(-1, 1, ys))))


@pytest.mark.parametrize('name', ['bias', 'scale'])
def test_default_axis_and_bad_inputs(name):
    func = getattr(F, name)
    x = numpy.ones((2, 3, 4))
    assert func(x, numpy.ones(3)).shape == (2, 3, 4)
    with pytest.raises(ValueError, match=name):
        func(x, numpy.ones(4))
    with pytest.raises(ValueError, match=name):
        func(x, numpy.ones((4, 2)), 2)
    with pytest.raises(TypeError, match=name):
        func(x, numpy.ones(3, numpy.float32))
