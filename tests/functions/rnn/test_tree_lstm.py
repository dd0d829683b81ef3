import math

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _sig(v):
    return 1.0 / (1.0 + math.exp(-v))


def _inputs(n_ary, c_shape, dtype, seed=0):
    rng = numpy.random.RandomState(seed)
    x_shape = (c_shape[0], (3 + n_ary) * c_shape[1]) + c_shape[2:]
    cs = [rng.uniform(-1, 1, c_shape).astype(dtype) for _ in range(n_ary)]
    return tuple(cs) + (rng.uniform(-1, 1, x_shape).astype(dtype),)


def _expected(*inputs):
    """Element by element, with contiguous gate blocks along axis 1."""
    cs, x = inputs[:-1], inputs[-1]
    units = cs[0].shape[1]
    c = numpy.empty(cs[0].shape)
    h = numpy.empty(cs[0].shape)
    for idx in numpy.ndindex(*c.shape):
        b, k, rest = idx[0], idx[1], idx[2:]
        gate = [float(x[(b, g * units + k) + rest])
                for g in range(3 + len(cs))]
        value = math.tanh(gate[0]) * _sig(gate[1])
        for n, c_child in enumerate(cs):
            value += _sig(gate[3 + n]) * float(c_child[idx])
        c[idx] = value
        h[idx] = _sig(gate[2]) * math.tanh(value)
    return c, h


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('n_ary,c_shape', [
    (1, (3, 2)), (2, (2, 3)), (3, (2, 1, 2)), (2, (1, 2, 3))])
def test_forward(dtype, n_ary, c_shape):
    inputs = _inputs(n_ary, c_shape, dtype)
    c, h = F.tree_lstm(*inputs)
    assert c.dtype == dtype and h.dtype == dtype
    assert c.shape == c_shape and h.shape == c_shape
    c_ref, h_ref = _expected(*inputs)
    tol = 5e-3 if dtype == numpy.float16 else 1e-6
    numpy.testing.assert_allclose(c.array, c_ref, rtol=tol, atol=tol)
    numpy.testing.assert_allclose(h.array, h_ref, rtol=tol, atol=tol)


def test_one_child_is_lstm_with_blocked_gates():
    # with one child the cell is F.lstm's, up to the gate layout
    c1, x = _inputs(1, (2, 3), numpy.float64)
    blocks = x.reshape(2, 4, 3)                 # a, i, o, f
    interleaved = blocks[:, [0, 1, 3, 2]].transpose(0, 2, 1).reshape(2, 12)
    c, h = F.tree_lstm(c1, x)
    c_l, h_l = F.lstm(c1, interleaved)
    numpy.testing.assert_allclose(c.array, c_l.array, rtol=1e-12)
    numpy.testing.assert_allclose(h.array, h_l.array, rtol=1e-12)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('n_ary,c_shape', [(1, (3, 2)), (3, (2, 2, 2))])
def test_backward(dtype, n_ary, c_shape):
    inputs = _inputs(n_ary, c_shape, dtype)
    rng = numpy.random.RandomState(1)
    gc, gh = rng.uniform(-1, 1, (2,) + c_shape).astype(dtype)
    tol = {numpy.float16: {'dtype': numpy.float64, 'atol': 5e-2,
                           'rtol': 5e-2},
           numpy.float32: {'dtype': numpy.float64, 'atol': 1e-3,
                           'rtol': 1e-3}}.get(dtype, {})
    gradient_check.check_backward(F.tree_lstm, inputs, (gc, gh), **tol)


@pytest.mark.parametrize('which', ['c', 'h'])
def test_backward_with_one_output_gradient(which):
    inputs = _inputs(2, (2, 2), numpy.float64)
    g = numpy.random.RandomState(1).uniform(-1, 1, (2, 2))
    grads = (g, None) if which == 'c' else (None, g)
    gradient_check.check_backward(F.tree_lstm, inputs, grads)


def test_double_backward_is_not_supported():
    xs = [cpuframe.Variable(a) for a in _inputs(2, (2, 1), numpy.float64)]
    c, h = F.tree_lstm(*xs)
    gx, = cpuframe.grad([F.sum(h)], [xs[-1]], enable_double_backprop=True)
    with pytest.raises(NotImplementedError, match='tree_lstm'):
        cpuframe.grad([F.sum(gx)], [xs[-1]])


@pytest.mark.parametrize('shapes', [
    ((2, 8),),                          # no cell state
    ((2, 2), (2, 10)),                  # 1 child needs 4 * units
    ((2, 2), (2, 3), (2, 10)),          # children differ
    ((2, 2), (2, 2), (3, 10)),          # batch differs
    ((2, 2, 3), (2, 2, 3), (2, 10, 2)),  # trailing axes differ
])
def test_bad_shapes_are_rejected(shapes):
    with pytest.raises(type_check.InvalidType, match='TreeLSTM'):
        F.tree_lstm(*[numpy.zeros(s) for s in shapes])


def test_mixed_dtypes_are_rejected():
    with pytest.raises(type_check.InvalidType, match='TreeLSTM'):
        F.tree_lstm(numpy.zeros((1, 1), numpy.float32),
                    numpy.zeros((1, 4), numpy.float64))


def test_chainer_module_path():
    from cpuframe.functions.rnn import tree_lstm as mod
    assert mod.tree_lstm is F.tree_lstm
    assert issubclass(mod.TreeLSTM, cpuframe.FunctionNode)
