import math

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


def _pooling_bins(roi, scale, outh, outw, h, w):
    """Integer ``[hs, he) x [ws, we)`` of each bin, as Chainer 7."""
    y0, x0, y1, x1 = [round(float(v) * scale) for v in roi]
    rh, rw = max(y1 - y0, 1), max(x1 - x0, 1)
    for i in range(outh):
        hs = min(max(math.floor(i * rh / outh) + y0, 0), h)
        he = min(max(math.ceil((i + 1) * rh / outh) + y0, 0), h)
        for j in range(outw):
            ws = min(max(math.floor(j * rw / outw) + x0, 0), w)
            we = min(max(math.ceil((j + 1) * rw / outw) + x0, 0), w)
            yield i, j, hs, he, ws, we


def _naive_pooling(x, rois, idx, outsize, scale, reduce):
    outh, outw = outsize
    n, c, h, w = x.shape
    y = numpy.zeros((len(rois), c, outh, outw))
    for r, roi in enumerate(rois):
        for i, j, hs, he, ws, we in _pooling_bins(roi, scale, outh, outw,
                                                  h, w):
            for ch in range(c):
                vals = [float(x[idx[r], ch, p, q]) for p in range(hs, he)
                        for q in range(ws, we)]
                y[r, ch, i, j] = reduce(vals) if vals else 0.0
    return y


def _interp(img, y, x):
    """Bilinear value of the 2-d ``img`` at ``(y, x)`` (None: outside)."""
    h, w = img.shape
    if y < -1 or y > h or x < -1 or x > w:
        return None
    y = min(max(y, 0.0), h - 1)
    x = min(max(x, 0.0), w - 1)
    y0, x0 = int(y), int(x)
    y1, x1 = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
    ly, lx = y - y0, x - x0
    return ((1 - ly) * (1 - lx) * img[y0, x0] + (1 - ly) * lx * img[y0, x1]
            + ly * (1 - lx) * img[y1, x0] + ly * lx * img[y1, x1])


def _naive_align(x, rois, idx, outsize, scale, ratio, mode):
    outh, outw = outsize
    n, c, h, w = x.shape
    y = numpy.zeros((len(rois), c, outh, outw))
    for r, roi in enumerate(rois):
        ys, xs, ye, xe = [float(v) * scale for v in roi]
        rh, rw = max(ye - ys, 1.0), max(xe - xs, 1.0)
        bh, bw = rh / outh, rw / outw
        gh = ratio[0] or math.ceil(rh / outh)
        gw = ratio[1] or math.ceil(rw / outw)
        for ch in range(c):
            img = x[idx[r], ch].astype(numpy.float64)
            for i in range(outh):
                for j in range(outw):
                    vals = [_interp(img, ys + i * bh + (a + 0.5) * bh / gh,
                                    xs + j * bw + (b + 0.5) * bw / gw)
                            for a in range(gh) for b in range(gw)]
                    if mode == 'max':
                        vals = [v for v in vals if v is not None]
                        y[r, ch, i, j] = max(vals) if vals else 0.0
                    else:
                        y[r, ch, i, j] = sum(v or 0.0 for v in vals) / (
                            gh * gw)
    return y


def _x(shape, dtype, seed=0):
    # Distinct, well separated values: no ties for a maximum.
    rng = numpy.random.RandomState(seed)
    size = int(numpy.prod(shape))
    return (rng.permutation(size).reshape(shape) / size).astype(dtype)


# (y_min, x_min, y_max, x_max)
ROIS = numpy.array([
    [1, 1, 6, 6],
    [0, 1, 5, 3],
    [1.3, 6.2, 4.7, 8.9],     # runs past the right edge
    [3, 3, 3, 3],             # a point: forced to one pixel
    [-2, -3, 1, 2],           # starts outside the map
    [20, 20, 30, 30],         # entirely outside
    [0.5, 0.25, 6.5, 7.75],   # fractional, nearly the whole map
], numpy.float64)
INDICES = numpy.array([0, 2, 1, 0, 1, 2, 1], numpy.int32)
POOLING = {'max': (F.roi_max_pooling_2d, max),
           'average': (F.roi_average_pooling_2d,
                       lambda v: sum(v) / len(v))}
ALIGN = {'max': F.roi_max_align_2d, 'average': F.roi_average_align_2d}


def _hw(outsize):
    return (outsize, outsize) if isinstance(outsize, int) else outsize


@pytest.mark.parametrize('mode', ['max', 'average'])
@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('outsize', [2, (3, 2), (4, 5)])
@pytest.mark.parametrize('scale', [1.0, 0.5, 0.6])
def test_pooling_forward(mode, dtype, outsize, scale):
    func, reduce = POOLING[mode]
    x = _x((3, 2, 7, 8), dtype)
    rois = ROIS.astype(dtype)
    y = func(x, rois, INDICES, outsize, scale)
    assert y.dtype == dtype and y.shape == (7, 2) + _hw(outsize)
    expect = _naive_pooling(x, rois, INDICES, _hw(outsize), scale, reduce)
    numpy.testing.assert_allclose(y.array, expect, rtol=1e-6)
    assert (y.array[5] == 0).all()


@pytest.mark.parametrize('mode', ['max', 'average'])
@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('outsize', [2, (3, 2)])
@pytest.mark.parametrize('scale', [1.0, 0.6])
@pytest.mark.parametrize('ratio', [None, 2, (1, 3)])
def test_align_forward(mode, dtype, outsize, scale, ratio):
    x = _x((3, 2, 7, 8), dtype)
    rois = ROIS.astype(dtype)
    y = ALIGN[mode](x, rois, INDICES, outsize, scale, sampling_ratio=ratio)
    assert y.dtype == dtype and y.shape == (7, 2) + _hw(outsize)
    pair = (None, None) if ratio is None else _hw(ratio)
    expect = _naive_align(x, rois, INDICES, _hw(outsize), scale, pair, mode)
    numpy.testing.assert_allclose(y.array, expect, rtol=1e-5, atol=1e-6)
    assert (y.array[5] == 0).all()


def test_pooling_no_plus_one():
    # Chainer 7's layout: the ROI [0, 2) covers 2 pixels, not 3.
    x = numpy.arange(9, dtype=numpy.float64).reshape(1, 1, 3, 3)
    rois = numpy.array([[0, 0, 2, 2]], numpy.float64)
    idx = numpy.array([0], numpy.int32)
    y = F.roi_average_pooling_2d(x, rois, idx, 1, 1.0)
    assert y.array.item() == (0 + 1 + 3 + 4) / 4
    assert F.roi_max_pooling_2d(x, rois, idx, 1, 1.0).array.item() == 4


def test_align_adaptive_ratio():
    # A 6x4 ROI over 2x2 bins samples each bin on a 3x2 grid.
    x = _x((1, 1, 8, 8), numpy.float64)
    rois = numpy.array([[1, 2, 7, 6]], numpy.float64)
    idx = numpy.array([0], numpy.int32)
    for func in ALIGN.values():
        numpy.testing.assert_allclose(
            func(x, rois, idx, 2, 1.0).array,
            func(x, rois, idx, 2, 1.0, sampling_ratio=(3, 2)).array)
        numpy.testing.assert_allclose(
            func(x, rois, idx, (2, 2), 1.0, sampling_ratio=2).array,
            func(x, rois, idx, 2, 1.0, sampling_ratio=(2, 2)).array)


def test_int64_indices():
    x = _x((3, 2, 7, 8), numpy.float32)
    rois = ROIS.astype(numpy.float32)
    for func in (F.roi_max_pooling_2d, F.roi_average_pooling_2d,
                 F.roi_max_align_2d, F.roi_average_align_2d):
        numpy.testing.assert_array_equal(
            func(x, rois, INDICES.astype(numpy.int64), 2, 1.0).array,
            func(x, rois, INDICES, 2, 1.0).array)


FUNCS = [
    lambda x, r, i: F.roi_max_pooling_2d(x, r, i, (3, 2), 1.0),
    lambda x, r, i: F.roi_average_pooling_2d(x, r, i, (3, 2), 0.6),
    lambda x, r, i: F.roi_max_align_2d(x, r, i, (3, 2), 1.0),
    lambda x, r, i: F.roi_average_align_2d(x, r, i, (3, 2), 0.6, 2),
]


@pytest.mark.parametrize('k', range(len(FUNCS)))
def test_backward(k):
    x = _x((3, 2, 7, 8), numpy.float64, 1)
    rng = numpy.random.RandomState(2)

    def f(x):
        return FUNCS[k](x, ROIS, INDICES)
    gy = rng.uniform(-1, 1, (7, 2, 3, 2))
    gradient_check.check_backward(f, (x,), gy, eps=1e-5, atol=1e-5)
    gradient_check.check_double_backward(
        f, (x,), gy, (rng.uniform(-1, 1, x.shape),), eps=1e-5, atol=1e-5)
    # ROIs and their indices get no gradient.
    xv = cpuframe.Variable(x)
    rv = cpuframe.Variable(ROIS.copy())
    y = FUNCS[k](xv, rv, INDICES)
    y.grad = gy
    y.backward()
    assert rv.grad is None
    assert (xv.grad != 0).any()


def test_max_pooling_grad_at_argmax():
    # Bins repeating one pixel add their gradients there.
    x = _x((1, 2, 5, 5), numpy.float64)
    xv = cpuframe.Variable(x)
    rois = numpy.array([[2, 2, 2, 2]], numpy.float64)
    y = F.roi_max_pooling_2d(xv, rois, numpy.array([0], numpy.int32),
                             (3, 2), 1.0)
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert xv.grad.sum() == 12 and xv.grad[0, :, 2, 2].tolist() == [6, 6]


@pytest.mark.parametrize('func', [F.roi_max_pooling_2d,
                                  F.roi_average_pooling_2d,
                                  F.roi_max_align_2d,
                                  F.roi_average_align_2d])
def test_bad_inputs(func):
    name = func.__name__
    x = _x((2, 2, 4, 4), numpy.float32)
    rois = numpy.array([[0, 0, 3, 3]], numpy.float32)
    idx = numpy.array([0], numpy.int32)
    with pytest.raises(type_check.InvalidType):
        func(x, numpy.zeros((1, 5), numpy.float32), idx, 2, 1.0)
    with pytest.raises(type_check.InvalidType):
        func(x, rois.astype(numpy.float64), idx, 2, 1.0)
    with pytest.raises(type_check.InvalidType):
        func(x, rois, numpy.array([0, 1], numpy.int32), 2, 1.0)
    with pytest.raises(type_check.InvalidType):
        func(x, rois, idx.astype(numpy.float32), 2, 1.0)
    with pytest.raises(type_check.InvalidType):
        func(x[0], rois, idx, 2, 1.0)
    for bad in (2, -1):
        with pytest.raises(ValueError, match=name + '.*roi_indices'):
            func(x, rois, numpy.array([bad], numpy.int32), 2, 1.0)
    for outsize in (0, (2,), (2, 0), 1.5, 'a', True, (2, 2, 2)):
        with pytest.raises(TypeError, match=name + ': outsize'):
            func(x, rois, idx, outsize, 1.0)
    for scale in (0, -1.0, None):
        with pytest.raises(TypeError, match=name + ': spatial_scale'):
            func(x, rois, idx, 2, scale)


@pytest.mark.parametrize('func', [F.roi_max_align_2d,
                                  F.roi_average_align_2d])
def test_bad_sampling_ratio(func):
    x = _x((1, 1, 4, 4), numpy.float32)
    rois = numpy.array([[0, 0, 3, 3]], numpy.float32)
    idx = numpy.array([0], numpy.int32)
    for ratio in (0, (1, 0), 1.5, (2,)):
        with pytest.raises(TypeError, match='sampling_ratio'):
            func(x, rois, idx, 2, 1.0, sampling_ratio=ratio)
    # None per axis is adaptive.
    func(x, rois, idx, 2, 1.0, sampling_ratio=(None, 2))
