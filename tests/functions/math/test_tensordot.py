import itertools

import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


def _naive_tensordot(a, b, a_axes, b_axes):
    a_free = [i for i in range(a.ndim) if i not in a_axes]
    b_free = [i for i in range(b.ndim) if i not in b_axes]
    out_shape = [a.shape[i] for i in a_free] + [b.shape[i] for i in b_free]
    sum_shape = [a.shape[i] for i in a_axes]
    y = numpy.zeros(out_shape)
    for oi in itertools.product(*[range(s) for s in out_shape]):
        acc = 0.0
        for si in itertools.product(*[range(s) for s in sum_shape]):
            ia = [0] * a.ndim
            ib = [0] * b.ndim
            for k, ax in enumerate(a_free):
                ia[ax] = oi[k]
            for k, ax in enumerate(b_free):
                ib[ax] = oi[len(a_free) + k]
            for k, (xa, xb) in enumerate(zip(a_axes, b_axes)):
                ia[xa] = si[k]
                ib[xb] = si[k]
            acc += float(a[tuple(ia)]) * float(b[tuple(ib)])
        y[oi] = acc
    return y


CASES = [
    # a_shape, b_shape, axes, (a_axes, b_axes) for the naive reference
    ((2, 3, 4), (3, 4, 2), 2, ((1, 2), (0, 1))),
    ((2, 3), (3, 4), 1, ((1,), (0,))),
    ((2, 3), (4, 2), 0, ((), ())),
    ((3, 2, 4), (4, 3), ((0, 2), (1, 0)), ((0, 2), (1, 0))),
    ((2, 3, 4), (4, 3), ([-1, 1], [0, -1]), ((2, 1), (0, 1))),
    ((3, 4), (3, 4), 2, ((0, 1), (0, 1))),
    ((2, 3), (2, 4), (0, 0), ((0,), (0,))),
]


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('a_shape,b_shape,axes,ref_axes', CASES)
def test_forward_backward(dtype, a_shape, b_shape, axes, ref_axes):
    rng = numpy.random.RandomState(0)
    a = rng.uniform(-1, 1, a_shape).astype(dtype)
    b = rng.uniform(-1, 1, b_shape).astype(dtype)
    y = F.tensordot(a, b, axes=axes)
    expected = _naive_tensordot(a, b, *ref_axes)
    assert y.dtype == dtype and y.shape == expected.shape
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-6)

    def f(a, b):
        return F.tensordot(a, b, axes=axes)
    gy = rng.uniform(-1, 1, expected.shape)
    a64, b64 = a.astype(numpy.float64), b.astype(numpy.float64)
    gradient_check.check_backward(f, (a64, b64), gy)
    gradient_check.check_double_backward(
        f, (a64, b64), gy,
        (rng.uniform(-1, 1, a_shape), rng.uniform(-1, 1, b_shape)))


def test_default_axes():
    a = numpy.arange(24.).reshape(2, 3, 4)
    b = numpy.arange(24.).reshape(3, 4, 2)
    numpy.testing.assert_allclose(F.tensordot(a, b).array,
                                  _naive_tensordot(a, b, (1, 2), (0, 1)))


def test_bad_inputs():
    with pytest.raises(type_check.InvalidType, match='TensorDot'):
        F.tensordot(numpy.zeros((2, 3)), numpy.zeros((4, 2)), axes=1)
    with pytest.raises(type_check.InvalidType, match='TensorDot'):
        F.tensordot(numpy.zeros((2, 3)), numpy.zeros((3, 2), numpy.float32),
                    axes=1)
    with pytest.raises(type_check.InvalidType, match='TensorDot'):
        F.tensordot(numpy.zeros((2, 3), numpy.int32),
                    numpy.zeros((3, 2), numpy.int32), axes=1)
    with pytest.raises(ValueError, match='(?i)tensordot'):
        F.tensordot(numpy.zeros((2, 3)), numpy.zeros((3, 2)), axes=3)
    with pytest.raises(ValueError, match='(?i)tensordot'):
        F.tensordot(numpy.zeros((2, 3)), numpy.zeros((3, 2)),
                    axes=((1,), (0, 1)))
    with pytest.raises(ValueError, match='(?i)tensordot'):
        F.tensordot(numpy.zeros((2, 3)), numpy.zeros((3, 2)),
                    axes=((5,), (0,)))
