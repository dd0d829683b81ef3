"""The intel64 parity tests of this op:
tests/backends/intel64/test_linear_relu_sum.py, test_grad_accumulation.py
and test_edge_values.py.
"""
import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

# (x shape, n_batch_axes); in_size is the product of the non-batch axes
CASES = [((4, 3), 1), ((4, 2, 3), 1), ((2, 3, 5), 2), ((2, 1, 2, 3), 3),
         ((0, 3), 1)]


def _inputs(rng, x_shape, n_batch_axes, nobias, dtype, out_size=2):
    in_size = int(numpy.prod(x_shape[n_batch_axes:]))
    x = rng.uniform(-1, 1, x_shape).astype(dtype)
    W = rng.uniform(-1, 1, (out_size, in_size)).astype(dtype)
    b = None if nobias else rng.uniform(-1, 1, (out_size,)).astype(dtype)
    return x, W, b


def _expected(x, W, b, n_batch_axes):
    batch = x.shape[:n_batch_axes]
    x2 = x.reshape(int(numpy.prod(batch)), W.shape[1]).astype(numpy.float64)
    y = numpy.zeros((x2.shape[0], W.shape[0]))
    for i in range(x2.shape[0]):
        for o in range(W.shape[0]):
            y[i, o] = sum(x2[i, j] * W[o, j] for j in range(W.shape[1]))
            if b is not None:
                y[i, o] += b[o]
    return y.reshape(batch + (W.shape[0],))


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('nobias', [False, True])
@pytest.mark.parametrize('x_shape,n_batch_axes', CASES)
def test_forward(x_shape, n_batch_axes, nobias, dtype):
    x, W, b = _inputs(numpy.random.RandomState(0), x_shape, n_batch_axes,
                      nobias, dtype)
    y = F.linear(cpuframe.Variable(x), cpuframe.Variable(W), b,
                 n_batch_axes=n_batch_axes)
    expected = _expected(x, W, b, n_batch_axes)
    assert y.dtype == dtype and y.shape == expected.shape
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('nobias', [False, True])
@pytest.mark.parametrize('x_shape,n_batch_axes', CASES[:4])
def test_backward(x_shape, n_batch_axes, nobias):
    rng = numpy.random.RandomState(1)
    x, W, b = _inputs(rng, x_shape, n_batch_axes, nobias, numpy.float64)

    def f(*args):
        return F.linear(*args, n_batch_axes=n_batch_axes)

    args = (x, W) if b is None else (x, W, b)
    gradient_check.check_backward(f, args, rng.uniform(-1, 1, f(*args).shape))


def test_backward_float32():
    rng = numpy.random.RandomState(2)
    x, W, b = _inputs(rng, (4, 3), 1, False, numpy.float32)
    gradient_check.check_backward(
        F.linear, (x, W, b), rng.uniform(-1, 1, (4, 2)).astype(numpy.float32),
        dtype=numpy.float64, atol=1e-3, rtol=1e-3)


@pytest.mark.parametrize('nobias', [False, True])
@pytest.mark.parametrize('x_shape,n_batch_axes', [((4, 3), 1),
                                                  ((2, 3, 5), 2)])
def test_double_backward(x_shape, n_batch_axes, nobias):
    rng = numpy.random.RandomState(3)
    x, W, b = _inputs(rng, x_shape, n_batch_axes, nobias, numpy.float64)

    def f(*args):
        return F.linear(*args, n_batch_axes=n_batch_axes)

    args = (x, W) if b is None else (x, W, b)
    gy = rng.uniform(-1, 1, f(*args).shape)
    ggs = tuple(rng.uniform(-1, 1, a.shape) for a in args)
    gradient_check.check_double_backward(f, args, gy, ggs)


def test_third_order():
    rng = numpy.random.RandomState(4)
    x, W, _ = _inputs(rng, (3, 4), 1, True, numpy.float64)
    gy = rng.uniform(-1, 1, (3, 2))

    def first(x, W, gy):
        return tuple(cpuframe.grad([F.sum(F.linear(x, W) * gy)], [x, W],
                                   enable_double_backprop=True))

    gradient_check.check_double_backward(
        first, (x, W, gy), (rng.uniform(-1, 1, x.shape),
                            rng.uniform(-1, 1, W.shape)),
        tuple(rng.uniform(-1, 1, a.shape) for a in (x, W, gy)))


def test_mixed_dtypes():
    x = cpuframe.Variable(numpy.ones((2, 3), numpy.float32))
    W = cpuframe.Variable(numpy.ones((4, 3), numpy.float64))
    y = F.linear(x, W)
    assert y.dtype == numpy.float32
    F.sum(y).backward()
    assert x.grad.dtype == numpy.float32 and W.grad.dtype == numpy.float64


def _bad(x, W, b=None, match='', n_batch_axes=1):
    with pytest.raises(type_check.InvalidType,
                       match='(?s)LinearFunction.*' + match):
        F.linear(x, W, b, n_batch_axes)


def test_shape_mismatch():
    _bad(numpy.zeros((2, 3), numpy.float32), numpy.zeros((4, 5), numpy.float32),
         match=r'x.shape\[1\] == W.shape\[1\]')


def test_wrong_ndim():
    _bad(numpy.zeros((2, 3), numpy.float32), numpy.zeros((3,), numpy.float32),
         match='W.ndim == 2')
    _bad(numpy.zeros((3,), numpy.float32), numpy.zeros((2, 3), numpy.float32),
         match='n_batch_axes')


def test_non_float():
    _bad(numpy.zeros((2, 3), numpy.int32), numpy.zeros((4, 3), numpy.float32),
         match="x.dtype.kind == 'f'")


def test_bias_mismatch():
    _bad(numpy.zeros((2, 3), numpy.float32), numpy.zeros((4, 3), numpy.float32),
         numpy.zeros((3,), numpy.float32), match=r'b.shape\[0\] == W.shape\[0\]')
    _bad(numpy.zeros((2, 3), numpy.float32), numpy.zeros((4, 3), numpy.float32),
         numpy.zeros((4,), numpy.float64), match='b.dtype == x.dtype')


@pytest.mark.parametrize('n', [0, -1, 1.5])
def test_bad_n_batch_axes(n):
    with pytest.raises(ValueError, match='linear: expected n_batch_axes'):
        F.linear(numpy.zeros((2, 3), numpy.float32),
                 numpy.zeros((4, 3), numpy.float32), n_batch_axes=n)


@pytest.mark.parametrize('layout', ['c', 'f'])
@pytest.mark.parametrize('values', ['normal', 'nonfinite', 'huge'])
def test_inner_dimension_one_products_equal_matmul(layout, values):
    # Linear's NumPy products with an inner dimension of 1 (a batch of one's
    # weight gradient, gy^T x) run on numpy.dot, faster there than matmul:
    # the values must be matmul's, NaN, infinities and overflow included.
    from cpuframe.functions.connection.linear import _matmul
    rng = numpy.random.RandomState(0)
    a = rng.standard_normal((1, 37)).astype(numpy.float32)
    b = rng.standard_normal((1, 23)).astype(numpy.float32)
    if values == 'nonfinite':
        a[0, :4] = [numpy.nan, numpy.inf, -numpy.inf, 0]
        b[0, :3] = [numpy.inf, 0, -0.0]
    elif values == 'huge':
        a *= 3e38
        b[0, :5] = 1e-30
    at = a.T if layout == 'c' else numpy.asfortranarray(a.T)
    with numpy.errstate(all='ignore'):
        got = _matmul(at, b, numpy.float32)
        want = numpy.matmul(at, b)
    assert got.dtype == numpy.float32 and got.shape == (37, 23)
    numpy.testing.assert_array_equal(got, want)
    assert (numpy.signbit(got) == numpy.signbit(want)).all()


def test_batch_of_one_gradients_match_float64():
    # The whole layer at batch 1, gradients against float64 products.
    rng = numpy.random.RandomState(1)
    x = rng.standard_normal((1, 9)).astype(numpy.float32)
    W = rng.standard_normal((5, 9)).astype(numpy.float32)
    gy = rng.standard_normal((1, 5)).astype(numpy.float32)
    vx, vW = cpuframe.Variable(x), cpuframe.Variable(W)
    with cpuframe.using_config('use_ideep', 'never'):
        y = F.linear(vx, vW)
        y.grad = gy
        y.backward()
    numpy.testing.assert_allclose(vW.grad, gy.T.astype(numpy.float64) @ x,
                                  rtol=1e-6)
    numpy.testing.assert_allclose(vx.grad, gy.astype(numpy.float64) @ W,
                                  rtol=1e-5, atol=1e-6)
