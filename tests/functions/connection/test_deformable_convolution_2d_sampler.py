"""F.deformable_convolution_2d_sampler against convolution_2d and a
loop-by-loop bilinear reference."""
import math

import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _bilinear(img, y, x):
    """img (h, w) at (y, x); neighbours outside the image are zeros."""
    h, w = img.shape
    y0, x0 = math.floor(y), math.floor(x)
    total = 0.0
    for yy, wy in ((y0, 1 - (y - y0)), (y0 + 1, y - y0)):
        for xx, wx in ((x0, 1 - (x - x0)), (x0 + 1, x - x0)):
            if 0 <= yy < h and 0 <= xx < w:
                total += wy * wx * float(img[yy, xx])
    return total


def _reference(x, offset, W, b, stride, pad):
    sy, sx = stride
    ph, pw = pad
    x = numpy.pad(x.astype(numpy.float64),
                  ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    n, c = x.shape[:2]
    out_c, _, kh, kw = W.shape
    out_h, out_w = offset.shape[2:]
    y = numpy.zeros((n, out_c, out_h, out_w))
    for b_, o, p, q in numpy.ndindex(*y.shape):
        total = 0.0 if b is None else float(b[o])
        for i in range(kh):
            for j in range(kw):
                k = i * kw + j
                dx = float(offset[b_, k, p, q])
                dy = float(offset[b_, kh * kw + k, p, q])
                for ch in range(c):
                    total += float(W[o, ch, i, j]) * _bilinear(
                        x[b_, ch], sy * p + i + dy, sx * q + j + dx)
        y[b_, o, p, q] = total
    return y


def _out(size, k, s, p):
    return (size + 2 * p - k) // s + 1


def _inputs(dtype, shape=(2, 3, 5, 6), out_c=2, k=(3, 2), stride=(1, 1),
            pad=(0, 0), seed=0, offset_range=2.0):
    rng = numpy.random.RandomState(seed)
    n, c, h, w = shape
    oh, ow = _out(h, k[0], stride[0], pad[0]), _out(w, k[1], stride[1], pad[1])
    x = rng.uniform(-1, 1, shape).astype(dtype)
    W = rng.uniform(-1, 1, (out_c, c) + k).astype(dtype)
    b = rng.uniform(-1, 1, out_c).astype(dtype)
    # keep the fractional parts away from integers (the kinks)
    whole = rng.randint(-offset_range, offset_range + 1,
                        (n, 2 * k[0] * k[1], oh, ow))
    offset = (whole + rng.uniform(0.2, 0.8, whole.shape)).astype(dtype)
    return x, offset, W, b


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('stride,pad', [((1, 1), (0, 0)), ((2, 1), (1, 2)),
                                        ((2, 2), (1, 1))])
def test_zero_offsets_are_convolution_2d(dtype, stride, pad):
    x, offset, W, b = _inputs(dtype, stride=stride, pad=pad)
    offset[...] = 0
    y = F.deformable_convolution_2d_sampler(x, offset, W, b, stride, pad)
    expected = F.convolution_2d(x, W, b, stride, pad)
    assert y.dtype == dtype and y.shape == expected.shape
    tol = {numpy.float16: 1e-2, numpy.float32: 1e-6,
           numpy.float64: 1e-13}[dtype]
    numpy.testing.assert_allclose(y.array, expected.array, rtol=tol,
                                  atol=tol)


@pytest.mark.parametrize('shift_y,shift_x', [(1, 0), (0, -2), (-1, 1),
                                             (2, 3)])
def test_integer_offsets_shift_the_image(shift_y, shift_x):
    x, offset, W, b = _inputs(numpy.float64, pad=(1, 1))
    n, c, h, w = x.shape
    offset[:, :6] = shift_x
    offset[:, 6:] = shift_y
    y = F.deformable_convolution_2d_sampler(x, offset, W, b, 1, 1)
    # the padded image moved by (-shift_y, -shift_x), zeros coming in
    padded = numpy.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    moved = numpy.zeros_like(padded)
    hp, wp = padded.shape[2:]
    for r in range(hp):
        for s in range(wp):
            if 0 <= r + shift_y < hp and 0 <= s + shift_x < wp:
                moved[:, :, r, s] = padded[:, :, r + shift_y, s + shift_x]
    expected = F.convolution_2d(moved, W, b)
    numpy.testing.assert_allclose(y.array, expected.array, rtol=1e-12,
                                  atol=1e-12)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('stride,pad,with_bias', [
    ((1, 1), (0, 0), True), ((2, 1), (1, 2), False)])
def test_fractional_offsets_against_loops(dtype, stride, pad, with_bias):
    x, offset, W, b = _inputs(dtype, stride=stride, pad=pad, seed=3)
    if not with_bias:
        b = None
    y = F.deformable_convolution_2d_sampler(x, offset, W, b, stride, pad)
    tol = 5e-2 if dtype == numpy.float16 else 1e-5
    numpy.testing.assert_allclose(
        y.array, _reference(x, offset, W, b, stride, pad), rtol=tol,
        atol=tol)


def test_output_size_follows_the_offset():
    x, offset, W, b = _inputs(numpy.float64)
    y = F.deformable_convolution_2d_sampler(x, offset[:, :, :2, :3], W, b)
    assert y.shape == (2, 2, 2, 3)


@pytest.mark.parametrize('with_bias', [True, False])
def test_backward(with_bias):
    x, offset, W, b = _inputs(numpy.float64, shape=(1, 2, 4, 4), k=(2, 2),
                              stride=(2, 1), pad=(1, 0), offset_range=1)
    args = (x, offset, W) + ((b,) if with_bias else ())
    gy = numpy.random.RandomState(5).uniform(
        -1, 1, (1, 2, 3, 3))

    def f(*a):
        return F.deformable_convolution_2d_sampler(*a, stride=(2, 1),
                                                   pad=(1, 0))

    gradient_check.check_backward(f, args, gy, eps=1e-4, atol=1e-6,
                                  rtol=1e-5)


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
def test_double_backward(dtype):
    x, offset, W, b = _inputs(dtype, shape=(1, 2, 3, 3), k=(2, 2),
                              offset_range=1, seed=7)
    rng = numpy.random.RandomState(8)
    gy = rng.uniform(-1, 1, (1, 2, 2, 2)).astype(dtype)
    ggs = tuple(rng.uniform(-1, 1, a.shape).astype(dtype)
                for a in (x, offset, W, b))
    tol = {} if dtype == numpy.float64 else {
        'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    gradient_check.check_double_backward(
        F.deformable_convolution_2d_sampler, (x, offset, W, b), gy, ggs,
        eps=1e-4 if dtype == numpy.float64 else 1e-3, **tol)


@pytest.mark.parametrize('change,match', [
    ({'offset': (2, 11, 3, 5)}, 'offset'),          # not 2 * kh * kw
    ({'offset': (1, 12, 3, 5)}, 'offset'),          # batch differs
    ({'W': (2, 4, 3, 2)}, 'W'),                     # channels differ
    ({'b': (3,)}, 'b'),
    ({'x': (3, 5, 6)}, 'x'),
])
def test_bad_shapes(change, match):
    shapes = {'x': (2, 3, 5, 6), 'offset': (2, 12, 3, 5),
              'W': (2, 3, 3, 2), 'b': (2,)}
    shapes.update(change)
    args = [numpy.zeros(shapes[k]) for k in ('x', 'offset', 'W', 'b')]
    with pytest.raises(type_check.InvalidType,
                       match='deformable_convolution_2d_sampler: ' + match):
        F.deformable_convolution_2d_sampler(*args)


def test_mixed_dtypes():
    with pytest.raises(type_check.InvalidType, match='offset'):
        F.deformable_convolution_2d_sampler(
            numpy.zeros((1, 1, 3, 3)), numpy.zeros((1, 8, 2, 2), numpy.float32),
            numpy.zeros((1, 1, 2, 2)))
