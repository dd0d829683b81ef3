"""Naive loop references for the convolution tests (independent of cpuframe)."""
import itertools

import numpy
import pytest


def _tuple(v, n):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


def naive_convolution(x, W, b=None, stride=1, pad=0, dilate=1, groups=1,
                      cover_all=False):
    """Convolution by loops over output positions and filter taps (float64)."""
    nd = x.ndim - 2
    stride, pad, dilate = (_tuple(v, nd) for v in (stride, pad, dilate))
    cover_all = _tuple(cover_all, nd)
    n, c = x.shape[:2]
    o_c, ksize = W.shape[0], W.shape[2:]
    cg, og = c // groups, o_c // groups
    # Chainer's cover_all rule: s - 1 more zeros on the far side.
    far = [p + (s - 1 if ca else 0) for p, s, ca in zip(pad, stride, cover_all)]
    xpad = numpy.zeros((n, c) + tuple(
        h + p + f for h, p, f in zip(x.shape[2:], pad, far)))
    xpad[(slice(None), slice(None)) + tuple(
        slice(p, p + h) for p, h in zip(pad, x.shape[2:]))] = x
    out = tuple((hp - (k - 1) * d - 1) // s + 1 for hp, k, d, s in
                zip(xpad.shape[2:], ksize, dilate, stride))
    y = numpy.zeros((n, o_c) + out)
    Wd = W.astype(numpy.float64)
    for pos in itertools.product(*[range(o) for o in out]):
        for tap in itertools.product(*[range(k) for k in ksize]):
            idx = tuple(s * i + d * k for s, i, d, k in
                        zip(stride, pos, dilate, tap))
            for g in range(groups):
                xs = xpad[(slice(None), slice(g * cg, (g + 1) * cg)) + idx]
                ws = Wd[(slice(g * og, (g + 1) * og), slice(None)) + tap]
                y[(slice(None), slice(g * og, (g + 1) * og)) + pos] += \
                    xs @ ws.T
    if b is not None:
        y += b.reshape((1, -1) + (1,) * nd)
    return y


def naive_deconvolution(x, W, b=None, stride=1, pad=0, dilate=1, groups=1,
                        outsize=None):
    """Deconvolution by scattering every input pixel through the filter (float64)."""
    nd = x.ndim - 2
    stride, pad, dilate = (_tuple(v, nd) for v in (stride, pad, dilate))
    n, in_c = x.shape[:2]
    insize = x.shape[2:]
    out_cg, ksize = W.shape[1], W.shape[2:]
    in_cg = in_c // groups
    full = [s * (i - 1) + (k - 1) * d + 1 for s, i, k, d in
            zip(stride, insize, ksize, dilate)]
    if outsize is None:
        outsize = tuple(f - 2 * p for f, p in zip(full, pad))
    size = tuple(max(f, o + 2 * p) for f, o, p in zip(full, outsize, pad))
    yf = numpy.zeros((n, out_cg * groups) + size)
    Wd = W.astype(numpy.float64)
    for pos in itertools.product(*[range(i) for i in insize]):
        for tap in itertools.product(*[range(k) for k in ksize]):
            idx = tuple(s * i + d * k for s, i, d, k in
                        zip(stride, pos, dilate, tap))
            for g in range(groups):
                xs = x[(slice(None), slice(g * in_cg, (g + 1) * in_cg)) + pos]
                ws = Wd[(slice(g * in_cg, (g + 1) * in_cg), slice(None)) + tap]
                yf[(slice(None), slice(g * out_cg, (g + 1) * out_cg)) + idx] \
                    += xs @ ws
    y = yf[(slice(None), slice(None)) + tuple(
        slice(p, p + o) for p, o in zip(pad, outsize))]
    if b is not None:
        y = y + b.reshape((1, -1) + (1,) * nd)
    return y


@pytest.fixture
def naive_conv():
    return naive_convolution


@pytest.fixture
def naive_deconv():
    return naive_deconvolution
