"""The intel64 parity tests of this op: tests/backends/intel64/test_pooling.py,
test_nan_inputs.py and test_edge_values.py.
"""
import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.functions.pooling.max_pooling_2d import MaxPooling2D, MaxPooling2DGrad
from cpuframe.utils import type_check

KSIZES = [2, 3]
STRIDES = [1, 2, None]
PADS = [0, 1]
COVER_ALL = [True, False]


def _out(size, k, s, p, cover_all):
    return (size + 2 * p - k + (s - 1 if cover_all else 0)) // s + 1


def _naive(x, k, s, p, cover_all):
    """Window maxima and first argmax (flat p * kw + q), -inf padding."""
    (kh, kw), (sy, sx), (ph, pw) = k, s, p
    n, c, h, w = x.shape
    oh, ow = _out(h, kh, sy, ph, cover_all), _out(w, kw, sx, pw, cover_all)
    y = numpy.empty((n, c, oh, ow), x.dtype)
    idx = numpy.empty((n, c, oh, ow), numpy.int64)
    for b in range(n):
        for ch in range(c):
            for i in range(oh):
                for j in range(ow):
                    best, arg = -numpy.inf, 0
                    for a in range(kh):
                        for e in range(kw):
                            r, q = i * sy + a - ph, j * sx + e - pw
                            v = x[b, ch, r, q] if 0 <= r < h and 0 <= q < w \
                                else -numpy.inf
                            if v > best:
                                best, arg = v, a * kw + e
                    y[b, ch, i, j], idx[b, ch, i, j] = best, arg
    return y, idx


def _naive_grad(x_shape, gy, idx, k, s, p):
    kw, (sy, sx), (ph, pw) = k[1], s, p
    gx = numpy.zeros(x_shape, gy.dtype)
    n, c, oh, ow = gy.shape
    for b in range(n):
        for ch in range(c):
            for i in range(oh):
                for j in range(ow):
                    a, e = divmod(int(idx[b, ch, i, j]), kw)
                    r, q = i * sy + a - ph, j * sx + e - pw
                    if 0 <= r < x_shape[2] and 0 <= q < x_shape[3]:
                        gx[b, ch, r, q] += gy[b, ch, i, j]
    return gx


def _distinct(shape, seed, dtype=numpy.float64):
    """Values far apart from each other, so no window has a tie."""
    rng = numpy.random.RandomState(seed)
    size = int(numpy.prod(shape))
    return (rng.permutation(size).reshape(shape) * 0.1 - size * 0.05).astype(
        dtype)


def _pair(v):
    return (v, v)


def _finite(y):
    """``y`` with the windows that lie wholly in the padding (-inf) zeroed.

    With ``cover_all`` and padding, the last window can miss the input.
    """
    keep = numpy.isfinite(y.array)
    return F.where(keep, y, numpy.zeros_like(y.array))


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('ksize', KSIZES)
@pytest.mark.parametrize('stride', STRIDES)
@pytest.mark.parametrize('pad', PADS)
@pytest.mark.parametrize('cover_all', COVER_ALL)
@pytest.mark.parametrize('return_indices', [False, True])
def test_forward(dtype, ksize, stride, pad, cover_all, return_indices):
    x = numpy.random.RandomState(0).uniform(-1, 1, (2, 3, 5, 6)).astype(dtype)
    s = ksize if stride is None else stride
    out = F.max_pooling_2d(cpuframe.Variable(x), ksize, stride, pad,
                           cover_all, return_indices)
    expected, idx = _naive(x, _pair(ksize), _pair(s), _pair(pad), cover_all)
    if return_indices:
        y, indexes = out
        assert isinstance(indexes, numpy.ndarray)
        assert indexes.shape == expected.shape
        numpy.testing.assert_array_equal(indexes, idx)
    else:
        y = out
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, expected)


@pytest.mark.parametrize('ksize,stride,pad', [
    ((2, 3), (1, 2), (1, 0)), ((3, 1), (2, 1), (0, 0)), ((1, 4), 3, (0, 2))])
@pytest.mark.parametrize('cover_all', COVER_ALL)
def test_forward_rectangular(ksize, stride, pad, cover_all):
    x = numpy.random.RandomState(1).normal(size=(1, 2, 7, 6))
    y, indexes = F.max_pooling_2d(x, ksize, stride, pad, cover_all,
                                  return_indices=True)
    s = stride if isinstance(stride, tuple) else _pair(stride)
    expected, idx = _naive(x, ksize, s, pad, cover_all)
    numpy.testing.assert_array_equal(y.array, expected)
    numpy.testing.assert_array_equal(indexes, idx)


@pytest.mark.parametrize('ksize', KSIZES)
@pytest.mark.parametrize('stride', STRIDES)
@pytest.mark.parametrize('pad', PADS)
@pytest.mark.parametrize('cover_all', COVER_ALL)
@pytest.mark.parametrize('return_indices', [False, True])
def test_backward_matches_naive(ksize, stride, pad, cover_all,
                                return_indices):
    rng = numpy.random.RandomState(2)
    x = rng.normal(size=(2, 2, 5, 6)).astype(numpy.float32)
    s = ksize if stride is None else stride
    xv = cpuframe.Variable(x)
    out = F.max_pooling_2d(xv, ksize, stride, pad, cover_all,
                           return_indices)
    y = out[0] if return_indices else out
    gy = rng.normal(size=y.shape).astype(numpy.float32)
    y.grad = gy
    y.backward()
    _, idx = _naive(x, _pair(ksize), _pair(s), _pair(pad), cover_all)
    expected = _naive_grad(x.shape, gy, idx, _pair(ksize), _pair(s),
                           _pair(pad))
    numpy.testing.assert_allclose(xv.grad, expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize('ksize', KSIZES)
@pytest.mark.parametrize('stride', STRIDES)
@pytest.mark.parametrize('pad', PADS)
@pytest.mark.parametrize('cover_all', COVER_ALL)
def test_gradient_check(ksize, stride, pad, cover_all):
    x = _distinct((2, 2, 5, 4), 3)
    y = F.max_pooling_2d(x, ksize, stride, pad, cover_all)
    rng = numpy.random.RandomState(4)
    gy = rng.uniform(-1, 1, y.shape)
    ggx = rng.uniform(-1, 1, x.shape)

    def f(x):
        return _finite(F.max_pooling_2d(x, ksize, stride, pad, cover_all))
    gradient_check.check_backward(f, x, gy)
    gradient_check.check_double_backward(f, x, gy, ggx)


def test_float32_gradient_check():
    x = _distinct((2, 3, 4, 4), 5, numpy.float32)
    gy = numpy.random.RandomState(6).uniform(-1, 1, (2, 3, 3, 3)).astype(
        numpy.float32)
    gradient_check.check_backward(
        lambda x: F.max_pooling_2d(x, 3, 2, 1), x, gy, dtype=numpy.float64,
        atol=1e-3, rtol=1e-3)


def test_grad_node_is_differentiable():
    # MaxPooling2DGrad is linear in gy; its gradient gathers with the same
    # positions, and that gather's gradient scatters again (third order).
    x = _distinct((1, 2, 5, 5), 7)
    pool = MaxPooling2D(3, 2, 1)
    y, = pool.apply((cpuframe.Variable(x),))
    rng = numpy.random.RandomState(8)
    gy = rng.uniform(-1, 1, y.shape)
    ggx = rng.uniform(-1, 1, x.shape)
    gggy = rng.uniform(-1, 1, y.shape)
    gradient_check.check_backward(
        lambda g: MaxPooling2DGrad(pool).apply((g,))[0], gy, ggx)
    gradient_check.check_double_backward(
        lambda g: MaxPooling2DGrad(pool).apply((g,))[0], gy, ggx, gggy)


def test_double_backward_values():
    x = cpuframe.Variable(_distinct((1, 1, 4, 4), 9))
    y = F.max_pooling_2d(x, 2)
    gy = cpuframe.Variable(numpy.ones(y.shape))
    gx, = cpuframe.grad([y], [x], [gy], enable_double_backprop=True)
    ggx = numpy.random.RandomState(10).normal(size=x.shape)
    ggy, = cpuframe.grad([gx], [gy], [ggx])
    # The gradient of the gradient reads ggx at the maxima.
    _, idx = _naive(x.array, (2, 2), (2, 2), (0, 0), True)
    expected = numpy.empty(y.shape)
    for i in range(2):
        for j in range(2):
            a, e = divmod(int(idx[0, 0, i, j]), 2)
            expected[0, 0, i, j] = ggx[0, 0, 2 * i + a, 2 * j + e]
    numpy.testing.assert_array_equal(ggy.array, expected)


def test_ties_route_to_first_maximum():
    x = cpuframe.Variable(numpy.zeros((1, 1, 4, 4), numpy.float32))
    y, idx = F.max_pooling_2d(x, 2, return_indices=True)
    numpy.testing.assert_array_equal(idx, 0)
    y.grad = numpy.ones(y.shape, numpy.float32)
    y.backward()
    expected = numpy.zeros((4, 4), numpy.float32)
    expected[::2, ::2] = 1
    numpy.testing.assert_array_equal(x.grad[0, 0], expected)


def test_pad_not_smaller_than_ksize():
    # Chainer accepts pad >= ksize: a window entirely in the padding gives
    # -inf and passes no gradient.
    x = numpy.arange(4, dtype=numpy.float64).reshape(1, 1, 2, 2) + 1
    y, idx = F.max_pooling_2d(x, 2, pad=2, return_indices=True)
    expected, naive_idx = _naive(x, (2, 2), (2, 2), (2, 2), True)
    numpy.testing.assert_array_equal(y.array, expected)
    numpy.testing.assert_array_equal(idx, naive_idx)
    assert numpy.isneginf(y.array[0, 0, 0, 0])
    xv = cpuframe.Variable(x)
    yv = F.max_pooling_2d(xv, 2, pad=2)
    yv.grad = numpy.ones(yv.shape)
    yv.backward()
    numpy.testing.assert_array_equal(xv.grad, _naive_grad(
        x.shape, numpy.ones(yv.shape), naive_idx, (2, 2), (2, 2), (2, 2)))
    assert xv.grad.sum() == 1  # only the centre window sees the input


def test_no_graph_without_grad():
    x = numpy.ones((1, 1, 4, 4), numpy.float32)
    with cpuframe.no_backprop_mode():
        y = F.max_pooling_2d(cpuframe.Variable(x), 2)
    assert y.creator_node is None
    assert y.shape == (1, 1, 2, 2)


def test_non_contiguous_input():
    x = numpy.random.RandomState(11).normal(size=(2, 6, 5, 3)).transpose(
        0, 3, 2, 1)
    y = F.max_pooling_2d(x, 2, 1, 1)
    expected, _ = _naive(numpy.ascontiguousarray(x), (2, 2), (1, 1),
                         (1, 1), True)
    numpy.testing.assert_array_equal(y.array, expected)


@pytest.mark.parametrize('shape', [(2, 3, 4), (1, 2, 3, 4, 5)])
def test_wrong_ndim(shape):
    with pytest.raises(type_check.InvalidType, match='MaxPooling2D'):
        F.max_pooling_2d(numpy.zeros(shape, numpy.float32), 2)


def test_int_input():
    with pytest.raises(type_check.InvalidType, match='MaxPooling2D'):
        F.max_pooling_2d(numpy.zeros((1, 1, 4, 4), numpy.int32), 2)


def test_empty_output():
    with pytest.raises(type_check.InvalidType, match='MaxPooling2D'):
        F.max_pooling_2d(numpy.zeros((1, 1, 2, 2), numpy.float32), 3,
                         cover_all=False)


@pytest.mark.parametrize('kwargs', [
    {'ksize': 0}, {'ksize': 2, 'stride': 0}, {'ksize': 2, 'pad': -1},
    {'ksize': (2, 2, 2)}])
def test_bad_options(kwargs):
    with pytest.raises(ValueError, match='MaxPooling2D'):
        F.max_pooling_2d(numpy.zeros((1, 1, 4, 4), numpy.float32), **kwargs)
