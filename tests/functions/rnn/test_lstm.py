"""The intel64 parity tests of this op: tests/backends/intel64/test_rnn.py,
test_grad_accumulation.py and test_kernel_isa.py.
"""
import math

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.functions.rnn.lstm import LSTMGrad
from cpuframe.utils import type_check

DTYPES = [numpy.float32, numpy.float64]
# (c_prev shape, x batch)
CASES = [((3, 2), 3), ((4, 3), 2), ((3, 2, 2), 3), ((3, 2, 2), 1),
         ((2, 1), 2)]


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


def _sig(v):
    return 1.0 / (1.0 + math.exp(-v))


def _inputs(c_shape, batch, dtype, seed=0):
    rng = numpy.random.RandomState(seed)
    c_prev = rng.uniform(-1, 1, c_shape).astype(dtype)
    x_shape = (batch, 4 * c_shape[1]) + c_shape[2:]
    x = rng.uniform(-1, 1, x_shape).astype(dtype)
    return c_prev, x


def _expected(c_prev, x):
    c_prev = c_prev.astype(numpy.float64)
    x = x.astype(numpy.float64)
    batch = x.shape[0]
    units = c_prev.shape[1]
    c = c_prev.copy()
    h = numpy.empty((batch,) + c_prev.shape[1:])
    for idx in numpy.ndindex(*h.shape):
        b, k, rest = idx[0], idx[1], idx[2:]
        # Chainer's layout: channel 4 * k + g is gate g of unit k
        a, i, f, o = (x[(b, 4 * k + g) + rest] for g in range(4))
        cv = math.tanh(a) * _sig(i) + _sig(f) * c_prev[idx]
        c[idx] = cv
        h[idx] = _sig(o) * math.tanh(cv)
    assert units == h.shape[1]
    return c, h


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('c_shape,batch', CASES)
def test_forward(dtype, c_shape, batch):
    c_prev, x = _inputs(c_shape, batch, dtype)
    c, h = F.lstm(c_prev, x)
    assert c.dtype == dtype and h.dtype == dtype
    assert c.shape == c_shape
    assert h.shape == (batch,) + c_shape[1:]
    c_ref, h_ref = _expected(c_prev, x)
    numpy.testing.assert_allclose(c.array, c_ref, rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(h.array, h_ref, rtol=1e-5, atol=1e-6)
    # rows without input keep their state exactly
    numpy.testing.assert_array_equal(c.array[batch:], c_prev[batch:])


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('c_shape,batch', CASES)
def test_backward(dtype, c_shape, batch):
    c_prev, x = _inputs(c_shape, batch, dtype)
    rng = numpy.random.RandomState(1)
    gc = rng.uniform(-1, 1, c_shape).astype(dtype)
    gh = rng.uniform(-1, 1, (batch,) + c_shape[1:]).astype(dtype)
    gradient_check.check_backward(F.lstm, (c_prev, x), (gc, gh),
                                  **_tols(dtype))


@pytest.mark.parametrize('which', ['c', 'h'])
def test_backward_with_one_output_gradient(which):
    c_prev, x = _inputs((3, 2), 2, numpy.float64)
    rng = numpy.random.RandomState(1)
    gc = rng.uniform(-1, 1, (3, 2)) if which == 'c' else None
    gh = rng.uniform(-1, 1, (2, 2)) if which == 'h' else None
    gradient_check.check_backward(F.lstm, (c_prev, x), (gc, gh))


@pytest.mark.parametrize('c_shape,batch', CASES)
def test_double_backward(c_shape, batch):
    c_prev, x = _inputs(c_shape, batch, numpy.float64)
    rng = numpy.random.RandomState(2)
    gc = rng.uniform(-1, 1, c_shape)
    gh = rng.uniform(-1, 1, (batch,) + c_shape[1:])
    ggc = rng.uniform(-1, 1, c_shape)
    ggx = rng.uniform(-1, 1, x.shape)
    gradient_check.check_double_backward(F.lstm, (c_prev, x), (gc, gh),
                                         (ggc, ggx))


def test_lstm_grad_backward_against_numerics():
    # every input of LSTMGrad (c_prev, x, gc, gh) checked at once
    c_prev, x = _inputs((3, 2), 2, numpy.float64)
    rng = numpy.random.RandomState(3)
    gc = rng.uniform(-1, 1, (3, 2))
    gh = rng.uniform(-1, 1, (2, 2))
    ggc = rng.uniform(-1, 1, (3, 2))
    ggx = rng.uniform(-1, 1, x.shape)
    gradient_check.check_backward(
        lambda *args: LSTMGrad().apply(args), (c_prev, x, gc, gh),
        (ggc, ggx))


def test_third_order_is_not_supported():
    c_prev, x = _inputs((2, 1), 2, numpy.float64)
    c0 = cpuframe.Variable(c_prev)
    x0 = cpuframe.Variable(x)
    c, h = F.lstm(c0, x0)
    gx, = cpuframe.grad([F.sum(h)], [x0], enable_double_backprop=True)
    ggx, = cpuframe.grad([F.sum(gx * gx)], [x0],
                         enable_double_backprop=True)
    with pytest.raises(NotImplementedError, match='lstm'):
        cpuframe.grad([F.sum(ggx)], [x0])


def test_gates_are_interleaved():
    # unit 0 gets a huge input gate and forget gate off, unit 1 the opposite
    c_prev = numpy.array([[0.0, 2.0]])
    x = numpy.array([[1.0, 50.0, -50.0, 50.0, 1.0, -50.0, 50.0, 50.0]])
    c, h = F.lstm(c_prev, x)
    numpy.testing.assert_allclose(c.array, [[math.tanh(1.0), 2.0]])


@pytest.mark.parametrize('c_shape,x_shape', [
    ((3, 2), (3, 7)),        # not 4 * units channels
    ((3, 2), (4, 8)),        # x has a larger batch than c_prev
    ((3, 2, 2), (3, 8, 3)),  # trailing axes differ
    ((3, 2), (3, 8, 1)),     # ndim differs
    ((3,), (3,)),            # ndim < 2
])
def test_bad_shapes_are_rejected(c_shape, x_shape):
    with pytest.raises(type_check.InvalidType, match='LSTM'):
        F.lstm(numpy.zeros(c_shape), numpy.zeros(x_shape))


def test_mismatched_dtypes_are_rejected():
    with pytest.raises(type_check.InvalidType, match='LSTM'):
        F.lstm(numpy.zeros((2, 1)), numpy.zeros((2, 4), numpy.float32))
