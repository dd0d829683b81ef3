import math

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


def _naive(x, rois, outh, outw, scale):
    n, c, h, w = x.shape
    y = numpy.zeros((len(rois), c, outh, outw))
    for r, roi in enumerate(rois):
        b = int(roi[0])
        x0, y0, x1, y1 = [round(float(v) * scale) for v in roi[1:]]
        rw, rh = max(x1 - x0 + 1, 1), max(y1 - y0 + 1, 1)
        for i in range(outh):
            hs = min(max(math.floor(i * rh / outh) + y0, 0), h)
            he = min(max(math.ceil((i + 1) * rh / outh) + y0, 0), h)
            for j in range(outw):
                ws = min(max(math.floor(j * rw / outw) + x0, 0), w)
                we = min(max(math.ceil((j + 1) * rw / outw) + x0, 0), w)
                for ch in range(c):
                    vals = [x[b, ch, p, q] for p in range(hs, he)
                            for q in range(ws, we)]
                    y[r, ch, i, j] = max(vals) if vals else 0.0
    return y


def _x(shape, dtype, seed=0):
    # Distinct values: no ties for the maximum.
    rng = numpy.random.RandomState(seed)
    size = int(numpy.prod(shape))
    return (rng.permutation(size).reshape(shape) / size).astype(dtype)


ROIS = numpy.array([
    [0, 1, 1, 6, 6],
    [2, 1, 0, 3, 5],
    [1, 6, 1, 8, 4],      # runs past the right edge
    [0, 3, 3, 3, 3],      # a single pixel: bins repeat it
    [1, -3, -2, 2, 1],    # starts outside the map
    [2, 20, 20, 30, 30],  # entirely outside: every bin empty
], numpy.float64)


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('outh,outw', [(2, 2), (3, 2), (4, 5)])
@pytest.mark.parametrize('scale', [1.0, 0.5, 0.6])
def test_forward(dtype, outh, outw, scale):
    x = _x((3, 2, 7, 8), dtype)
    rois = ROIS.astype(dtype)
    y = F.roi_pooling_2d(x, rois, outh, outw, scale)
    assert y.dtype == dtype and y.shape == (6, 2, outh, outw)
    numpy.testing.assert_allclose(y.array, _naive(x, rois, outh, outw, scale))
    assert (y.array[5] == 0).all()


def test_half_rounds_to_even():
    # 5 * 0.5 = 2.5 rounds to 2 (not 3): the ROI starts at column 2.
    x = numpy.zeros((1, 1, 1, 6))
    x[0, 0, 0, 2] = 1.0
    rois = numpy.array([[0, 5, 0, 5, 0]], numpy.float64)
    y = F.roi_pooling_2d(x, rois, 1, 1, 0.5)
    assert y.array.item() == 1.0


def test_backward():
    x = _x((2, 2, 6, 7), numpy.float64, 1)
    rois = ROIS[[0, 2, 3, 4, 5]].copy()
    rois[:, 0] = [0, 1, 0, 1, 1]
    rng = numpy.random.RandomState(2)

    def f(x):
        return F.roi_pooling_2d(x, rois, 3, 2, 1.0)
    gy = rng.uniform(-1, 1, (5, 2, 3, 2))
    gradient_check.check_backward(f, (x,), gy, eps=1e-4)
    gradient_check.check_double_backward(f, (x,), gy,
                                         (rng.uniform(-1, 1, x.shape),),
                                         eps=1e-4)
    # Overlapping bins add their gradients at a shared maximum.
    xv = cpuframe.Variable(x)
    y = F.roi_pooling_2d(xv, rois[2:3], 3, 2, 1.0)  # one pixel, 6 bins
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert xv.grad.sum() == 12 and xv.grad.max() == 6


def test_bad_inputs():
    x = _x((1, 2, 4, 4), numpy.float32)
    rois = numpy.array([[0, 0, 0, 3, 3]], numpy.float32)
    with pytest.raises(type_check.InvalidType, match='ROIPooling2D'):
        F.roi_pooling_2d(x, rois[:, :4], 2, 2, 1.0)
    with pytest.raises(type_check.InvalidType, match='ROIPooling2D'):
        F.roi_pooling_2d(x, rois.astype(numpy.float64), 2, 2, 1.0)
    with pytest.raises(type_check.InvalidType, match='ROIPooling2D'):
        F.roi_pooling_2d(x[0], rois, 2, 2, 1.0)
    with pytest.raises(ValueError, match='roi_pooling_2d'):
        F.roi_pooling_2d(x, rois, 0, 2, 1.0)
    with pytest.raises(ValueError, match='batch index'):
        F.roi_pooling_2d(x, numpy.array([[1, 0, 0, 3, 3]], numpy.float32),
                         2, 2, 1.0)
