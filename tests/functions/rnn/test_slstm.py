import math

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

DTYPES = [numpy.float32, numpy.float64]
SHAPES = [(3, 2), (2, 1, 3), (1, 3)]


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


def _sig(v):
    return 1.0 / (1.0 + math.exp(-v))


def _inputs(c_shape, dtype, seed=0):
    rng = numpy.random.RandomState(seed)
    x_shape = (c_shape[0], 4 * c_shape[1]) + c_shape[2:]
    return tuple(rng.uniform(-1, 1, s).astype(dtype)
                 for s in (c_shape, c_shape, x_shape, x_shape))


def _expected(c1, c2, x1, x2):
    c = numpy.empty(c1.shape)
    h = numpy.empty(c1.shape)
    for idx in numpy.ndindex(*c1.shape):
        b, k, rest = idx[0], idx[1], idx[2:]
        g1 = [float(x1[(b, 4 * k + g) + rest]) for g in range(4)]
        g2 = [float(x2[(b, 4 * k + g) + rest]) for g in range(4)]
        a = math.tanh(g1[0] + g2[0])
        i = _sig(g1[1] + g2[1])
        f1, f2 = _sig(g1[2]), _sig(g2[2])
        o = _sig(g1[3] + g2[3])
        c[idx] = a * i + f1 * float(c1[idx]) + f2 * float(c2[idx])
        h[idx] = o * math.tanh(c[idx])
    return c, h


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('c_shape', SHAPES)
def test_forward(dtype, c_shape):
    inputs = _inputs(c_shape, dtype)
    c, h = F.slstm(*inputs)
    assert c.dtype == dtype and c.shape == c_shape and h.shape == c_shape
    c_ref, h_ref = _expected(*inputs)
    numpy.testing.assert_allclose(c.array, c_ref, rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(h.array, h_ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('c_shape', SHAPES)
def test_backward(dtype, c_shape):
    inputs = _inputs(c_shape, dtype)
    rng = numpy.random.RandomState(1)
    gc, gh = rng.uniform(-1, 1, (2,) + c_shape).astype(dtype)
    gradient_check.check_backward(F.slstm, inputs, (gc, gh), **_tols(dtype))


@pytest.mark.parametrize('which', ['c', 'h'])
def test_backward_with_one_output_gradient(which):
    inputs = _inputs((2, 2), numpy.float64)
    g = numpy.random.RandomState(1).uniform(-1, 1, (2, 2))
    grads = (g, None) if which == 'c' else (None, g)
    gradient_check.check_backward(F.slstm, inputs, grads)


def test_double_backward_is_not_supported():
    xs = [cpuframe.Variable(a) for a in _inputs((2, 1), numpy.float64)]
    c, h = F.slstm(*xs)
    gx, = cpuframe.grad([F.sum(h)], [xs[2]], enable_double_backprop=True)
    with pytest.raises(NotImplementedError, match='slstm'):
        cpuframe.grad([F.sum(gx)], [xs[2]])


@pytest.mark.parametrize('shapes', [
    ((2, 2), (2, 3), (2, 8), (2, 8)),   # c_prev shapes differ
    ((2, 2), (2, 2), (2, 8), (2, 4)),   # x shapes differ
    ((2, 2), (2, 2), (3, 8), (3, 8)),   # batch differs
    ((2, 2), (2, 2), (2, 6), (2, 6)),   # not 4 * units channels
])
def test_bad_shapes_are_rejected(shapes):
    with pytest.raises(type_check.InvalidType, match='SLSTM'):
        F.slstm(*[numpy.zeros(s) for s in shapes])
