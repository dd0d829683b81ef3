"""The intel64 parity tests of this op: tests/backends/intel64/test_pooling.py,
test_nan_inputs.py and test_edge_values.py.
"""
import itertools

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

SHAPES = {1: (2, 3, 7), 3: (1, 2, 4, 3, 5)}


def _out(size, k, s, p, cover_all):
    return (size + 2 * p - k + (s - 1 if cover_all else 0)) // s + 1


def _naive(x, k, s, p, cover_all):
    """N-d window maxima and first argmax (flat over ``k``), -inf padding."""
    dims = x.shape[2:]
    outs = tuple(_out(d, *a, cover_all) for d, a in zip(dims, zip(k, s, p)))
    y = numpy.empty(x.shape[:2] + outs, x.dtype)
    idx = numpy.empty(x.shape[:2] + outs, numpy.int64)
    for nc in itertools.product(*map(range, x.shape[:2])):
        for o in itertools.product(*map(range, outs)):
            best, arg = -numpy.inf, 0
            for flat, off in enumerate(itertools.product(*map(range, k))):
                pos = tuple(oi * si + ki - pi
                            for oi, si, ki, pi in zip(o, s, off, p))
                inside = all(0 <= q < d for q, d in zip(pos, dims))
                v = x[nc + pos] if inside else -numpy.inf
                if v > best:
                    best, arg = v, flat
            y[nc + o], idx[nc + o] = best, arg
    return y, idx


def _distinct(shape, seed):
    rng = numpy.random.RandomState(seed)
    size = int(numpy.prod(shape))
    return rng.permutation(size).reshape(shape) * 0.1 - size * 0.05


def _finite(y):
    return F.where(numpy.isfinite(y.array), y, numpy.zeros_like(y.array))


@pytest.mark.parametrize('ndim', [1, 3])
@pytest.mark.parametrize('ksize', [2, 3])
@pytest.mark.parametrize('stride', [1, 2, None])
@pytest.mark.parametrize('pad', [0, 1])
@pytest.mark.parametrize('cover_all', [True, False])
@pytest.mark.parametrize('return_indices', [False, True])
def test_forward(ndim, ksize, stride, pad, cover_all, return_indices):
    x = numpy.random.RandomState(0).uniform(-1, 1, SHAPES[ndim]).astype(
        numpy.float32)
    s = ksize if stride is None else stride
    out = F.max_pooling_nd(x, ksize, stride, pad, cover_all, return_indices)
    expected, idx = _naive(x, (ksize,) * ndim, (s,) * ndim, (pad,) * ndim,
                           cover_all)
    y = out[0] if return_indices else out
    if return_indices:
        numpy.testing.assert_array_equal(out[1], idx)
    assert y.dtype == numpy.float32
    numpy.testing.assert_array_equal(y.array, expected)


@pytest.mark.parametrize('ndim', [1, 3])
@pytest.mark.parametrize('ksize', [2, 3])
@pytest.mark.parametrize('stride', [1, 2, None])
@pytest.mark.parametrize('pad', [0, 1])
@pytest.mark.parametrize('cover_all', [True, False])
def test_gradient_check(ndim, ksize, stride, pad, cover_all):
    shape = (1, 2, 5) if ndim == 1 else (1, 1, 4, 3, 4)
    x = _distinct(shape, 1)

    def f(x):
        return _finite(F.max_pooling_nd(x, ksize, stride, pad, cover_all))
    y = f(x)
    rng = numpy.random.RandomState(2)
    gy = rng.uniform(-1, 1, y.shape)
    ggx = rng.uniform(-1, 1, x.shape)
    gradient_check.check_backward(f, x, gy)
    gradient_check.check_double_backward(f, x, gy, ggx)


def test_mixed_options_3d():
    x = numpy.random.RandomState(3).normal(size=(1, 2, 5, 4, 6))
    k, s, p = (2, 3, 1), (1, 2, 3), (1, 0, 0)
    y, idx = F.max_pooling_nd(x, k, s, p, return_indices=True)
    expected, naive_idx = _naive(x, k, s, p, True)
    numpy.testing.assert_array_equal(y.array, expected)
    numpy.testing.assert_array_equal(idx, naive_idx)


def test_2d_agrees_with_max_pooling_2d():
    x = numpy.random.RandomState(4).normal(size=(2, 3, 6, 5))
    a = F.max_pooling_nd(x, 3, 2, 1)
    b = F.max_pooling_2d(x, 3, 2, 1)
    numpy.testing.assert_array_equal(a.array, b.array)


def test_1d_and_3d_wrappers():
    x1 = numpy.random.RandomState(5).normal(size=(1, 2, 6))
    numpy.testing.assert_array_equal(F.max_pooling_1d(x1, 2).array,
                                     F.max_pooling_nd(x1, 2).array)
    x3 = numpy.random.RandomState(6).normal(size=(1, 1, 2, 4, 4))
    y, idx = F.max_pooling_3d(x3, 2, return_indices=True)
    assert y.shape == (1, 1, 1, 2, 2) and idx.shape == y.shape
    with pytest.raises(ValueError, match='max_pooling_1d'):
        F.max_pooling_1d(x3, 2)
    with pytest.raises(ValueError, match='max_pooling_3d'):
        F.max_pooling_3d(x1, 2)


def test_backward_after_unchained_output():
    # The argmax is found at backward from the retained input and output,
    # even when the output Variable itself is gone.
    x = cpuframe.Variable(_distinct((1, 2, 6), 7))
    loss = F.sum(F.max_pooling_nd(x, 3, 2) * 2.0)
    loss.backward()
    _, idx = _naive(x.array, (3,), (2,), (0,), True)
    expected = numpy.zeros(x.shape)
    for c in range(2):
        for o in range(idx.shape[2]):
            expected[0, c, 2 * o + idx[0, c, o]] += 2.0
    numpy.testing.assert_array_equal(x.grad, expected)


def test_too_few_axes():
    with pytest.raises(type_check.InvalidType, match='MaxPoolingND'):
        F.max_pooling_nd(numpy.zeros((2, 3), numpy.float32), 2)


def test_ksize_length_mismatch():
    with pytest.raises(ValueError, match='MaxPoolingND'):
        F.max_pooling_nd(numpy.zeros((1, 1, 4, 4, 4), numpy.float32), (2, 2))


def test_empty_output():
    with pytest.raises(type_check.InvalidType, match='MaxPoolingND'):
        F.max_pooling_nd(numpy.zeros((1, 1, 2), numpy.float32), 4,
                         cover_all=False)


def test_int_input():
    with pytest.raises(type_check.InvalidType, match='MaxPoolingND'):
        F.max_pooling_nd(numpy.zeros((1, 1, 4), numpy.int64), 2)


def test_windows_shared_per_geometry_and_offsets_worked_out_once():
    # One Windows per geometry; its offsets are the same tuple on every
    # call and equal a fresh object's; another geometry gets its own.
    from cpuframe.functions.pooling import _pooling_utils as pu
    w = pu.windows((5, 4), (2, 3), (2, 1), (1, 0), (3, 2))
    assert pu.windows([5, 4], (2, 3), [2, 1], (1, 0), (3, 2)) is w
    assert w.offsets() is w.offsets()
    fresh = pu.Windows((5, 4), (2, 3), (2, 1), (1, 0), (3, 2))
    assert list(w.offsets()) == list(fresh.offsets())
    assert len(w.offsets()) == 6
    assert w.offsets()[5] == (5, (Ellipsis, slice(1, 6, 2), slice(2, 4, 1)))
    other = pu.windows((5, 4), (2, 3), (2, 1), (0, 0), (2, 2))
    assert other is not w and other.pad == (0, 0)


def test_flat_indices_follow_the_batch_shape():
    # The window origins are kept for the last (n, c): another batch shape
    # works out its own, and every answer equals a fresh Windows'.
    from cpuframe.functions.pooling import _pooling_utils as pu
    w = pu.windows((5, 4), (2, 3), (2, 1), (1, 0), (3, 2))
    rng = numpy.random.RandomState(3)
    for n, c in [(2, 3), (1, 3), (2, 3), (2, 1)]:
        idx = rng.randint(0, 6, (n, c, 3, 2))
        fresh = pu.Windows((5, 4), (2, 3), (2, 1), (1, 0), (3, 2))
        got = w.flat_indices(idx)
        numpy.testing.assert_array_equal(got, fresh.flat_indices(idx))
        assert got.shape == (n, c, 3, 2)
        got[...] = -1           # the caller's own array, not the kept one
    numpy.testing.assert_array_equal(w.flat_indices(idx),
                                     fresh.flat_indices(idx))


def test_large_batch_window_origins_are_not_kept():
    # a shared Windows lives as long as the process: it keeps the origins
    # of small batches only
    from cpuframe.functions.pooling import _pooling_utils as pu
    w = pu.windows((9, 8), (2, 2), (2, 2), (0, 0), (4, 4))
    small = numpy.zeros((2, 3, 4, 4), numpy.intp)
    w.flat_indices(small)
    assert w._flat_parts is not None and w._flat_parts[0][:2] == (2, 3)
    n = pu._KEPT_ORIGINS_MAX // 16 + 1
    big = numpy.zeros((n, 1, 4, 4), numpy.intp)
    fresh = pu.Windows((9, 8), (2, 2), (2, 2), (0, 0), (4, 4))
    numpy.testing.assert_array_equal(w.flat_indices(big),
                                     fresh.flat_indices(big))
    assert w._flat_parts[0][:2] == (2, 3)       # the small batch's kept
