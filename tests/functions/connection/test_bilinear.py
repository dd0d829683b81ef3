import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

# (e1 shape, e2 shape, W shape)
CASES = [((3, 2), (3, 4), (2, 4, 5)), ((2, 2, 3), (2, 3), (6, 3, 2)),
         ((1, 1), (1, 1), (1, 1, 1))]


def _inputs(rng, e1_shape, e2_shape, w_shape, linear_terms, dtype):
    arrays = [rng.uniform(-1, 1, s).astype(dtype)
              for s in (e1_shape, e2_shape, w_shape)]
    if linear_terms:
        j, k, out = w_shape
        arrays += [rng.uniform(-1, 1, s).astype(dtype)
                   for s in ((j, out), (k, out), (out,))]
    return tuple(arrays)


def _expected(e1, e2, W, V1=None, V2=None, b=None):
    n = e1.shape[0]
    e1 = e1.reshape(n, -1)
    e2 = e2.reshape(n, -1)
    y = numpy.zeros((n, W.shape[2]))
    for i in range(n):
        for o in range(W.shape[2]):
            y[i, o] = sum(e1[i, j] * e2[i, k] * W[j, k, o]
                          for j in range(W.shape[0])
                          for k in range(W.shape[1]))
            if V1 is not None:
                y[i, o] += e1[i] @ V1[:, o] + e2[i] @ V2[:, o] + b[o]
    return y


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('linear_terms', [False, True])
@pytest.mark.parametrize('e1_shape,e2_shape,w_shape', CASES)
def test_forward(e1_shape, e2_shape, w_shape, linear_terms, dtype):
    args = _inputs(numpy.random.RandomState(0), e1_shape, e2_shape, w_shape,
                   linear_terms, dtype)
    y = F.bilinear(*[cpuframe.Variable(a) for a in args])
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, _expected(*args), rtol=1e-5,
                                  atol=1e-6)


@pytest.mark.parametrize('linear_terms', [False, True])
@pytest.mark.parametrize('e1_shape,e2_shape,w_shape', CASES)
def test_backward(e1_shape, e2_shape, w_shape, linear_terms):
    rng = numpy.random.RandomState(1)
    args = _inputs(rng, e1_shape, e2_shape, w_shape, linear_terms,
                   numpy.float64)
    gy = rng.uniform(-1, 1, (e1_shape[0], w_shape[2]))
    gradient_check.check_backward(F.bilinear, args, gy)


@pytest.mark.parametrize('linear_terms', [False, True])
def test_double_backward(linear_terms):
    rng = numpy.random.RandomState(2)
    args = _inputs(rng, *CASES[1], linear_terms, numpy.float64)
    gy = rng.uniform(-1, 1, (2, 2))
    ggs = tuple(rng.uniform(-1, 1, a.shape) for a in args)
    gradient_check.check_double_backward(F.bilinear, args, gy, ggs)


def test_partial_linear_terms():
    e1, e2, W, V1, V2, b = _inputs(numpy.random.RandomState(3), *CASES[0],
                                   True, numpy.float32)
    with pytest.raises(ValueError, match='bilinear: V1, V2 and b'):
        F.bilinear(e1, e2, W, V1)


def test_bad_shapes():
    e1, e2, W = _inputs(numpy.random.RandomState(4), *CASES[0], False,
                        numpy.float32)
    with pytest.raises(type_check.InvalidType,
                       match=r'(?s)BilinearFunction.*W.shape\[1\]'):
        F.bilinear(e1, e2[:, :3], W)
    with pytest.raises(type_check.InvalidType,
                       match=r'(?s)BilinearFunction.*e1.shape\[0\] == '):
        F.bilinear(e1[:2], e2, W)
    with pytest.raises(type_check.InvalidType,
                       match="(?s)BilinearFunction.*e1.dtype.kind == 'f'"):
        F.bilinear(e1.astype(numpy.int32), e2, W)
