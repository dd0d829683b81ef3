"""Parity of the oneDNN convolution routes with the NumPy path.

Forward and every gradient (x, W, b), on NumPy inputs and on the Intel64
device, over stride, pad, cover_all, dilation, groups, 1-D/2-D/3-D, odd
sizes, batch 1 and non-contiguous inputs.
"""
import numpy
import pytest
from testhelpers.intel64_layouts import conv_args

import cpuframe.functions as F
from cpuframe import Variable
from cpuframe.backends import intel64
from cpuframe.configuration import using_config

CONV_2D = [
    dict(x=(2, 4, 7, 7), w=(6, 4, 3, 3)),
    dict(x=(1, 3, 8, 6), w=(5, 3, 3, 2), stride=2, pad=1),
    dict(x=(2, 4, 9, 9), w=(4, 4, 3, 3), stride=2, pad=1, cover_all=True),
    dict(x=(2, 4, 8, 8), w=(4, 4, 2, 2), stride=3, pad=0, cover_all=True),
    dict(x=(2, 4, 9, 9), w=(6, 4, 3, 3), dilate=2, pad=2),
    dict(x=(2, 6, 7, 7), w=(9, 2, 3, 3), groups=3, pad=1),
    dict(x=(2, 8, 7, 7), w=(8, 1, 3, 3), groups=8, pad=1, stride=2),
    dict(x=(2, 4, 7, 5), w=(3, 4, 1, 1), stride=(2, 1)),
    dict(x=(1, 16, 10, 10), w=(32, 16, 3, 3), pad=1),
]


@pytest.mark.parametrize('case', CONV_2D)
@pytest.mark.parametrize('bias', [True, False])
@pytest.mark.parametrize('where', ['numpy', 'device'])
def test_convolution_2d_parity(case, bias, where, rng, run, parity):
    arrays, opts = conv_args(case, rng, bias)
    groups = opts.pop('groups', 1)
    dilate = opts.pop('dilate', 1)

    def f(*a):
        return F.convolution_2d(*a, dilate=dilate, groups=groups, **opts)
    ref = run(f, arrays, mode='never')
    got = run(f, arrays, mode='always', where=where)
    parity(got, ref)


@pytest.mark.parametrize('nd,x,w,opts', [
    (1, (2, 3, 11), (4, 3, 3), dict(stride=2, pad=1)),
    (1, (1, 4, 9), (4, 2, 2), dict(groups=2, cover_all=True, stride=2)),
    (3, (2, 3, 5, 6, 5), (4, 3, 3, 3, 3), dict(pad=1)),
    (3, (1, 4, 6, 6, 6), (4, 4, 2, 3, 2), dict(stride=2, dilate=(1, 2, 1))),
])
@pytest.mark.parametrize('where', ['numpy', 'device'])
def test_convolution_nd_parity(nd, x, w, opts, where, rng, run, parity):
    xs = rng.standard_normal(x).astype(numpy.float32)
    Ws = (rng.standard_normal(w) * 0.3).astype(numpy.float32)
    b = rng.standard_normal(w[0]).astype(numpy.float32)

    def f(*a):
        return F.convolution_nd(*a, **opts)
    ref = run(f, [xs, Ws, b], mode='never')
    parity(run(f, [xs, Ws, b], where=where), ref)


DECONV = [
    dict(x=(2, 4, 5, 5), w=(4, 3, 3, 3)),
    dict(x=(1, 4, 4, 5), w=(4, 3, 3, 3), stride=2, pad=1),
    dict(x=(2, 4, 4, 4), w=(4, 3, 3, 3), stride=2, pad=1, outsize=(8, 8)),
    dict(x=(2, 4, 4, 4), w=(4, 3, 4, 4), stride=3, pad=1, outsize=(11, 12)),
    dict(x=(2, 6, 5, 5), w=(6, 2, 3, 3), groups=3, stride=2),
    dict(x=(2, 4, 5, 5), w=(4, 2, 3, 3), dilate=2, pad=1),
]


@pytest.mark.parametrize('case', DECONV)
@pytest.mark.parametrize('where', ['numpy', 'device'])
def test_deconvolution_2d_parity(case, where, rng, run, parity):
    x = rng.standard_normal(case['x']).astype(numpy.float32)
    W = (rng.standard_normal(case['w']) * 0.3).astype(numpy.float32)
    groups = case.get('groups', 1)
    b = rng.standard_normal(case['w'][1] * groups).astype(numpy.float32)
    opts = {k: v for k, v in case.items() if k not in ('x', 'w', 'groups',
                                                       'dilate')}

    def f(*a):
        return F.deconvolution_2d(*a, dilate=case.get('dilate', 1),
                                  groups=groups, **opts)
    ref = run(f, [x, W, b], mode='never')
    parity(run(f, [x, W, b], where=where), ref)


@pytest.mark.parametrize('where', ['numpy', 'device'])
def test_deconvolution_3d_parity(where, rng, run, parity):
    x = rng.standard_normal((1, 4, 3, 4, 3)).astype(numpy.float32)
    W = (rng.standard_normal((4, 2, 3, 3, 3)) * 0.3).astype(numpy.float32)

    def f(*a):
        return F.deconvolution_nd(*a, stride=2, pad=1)
    parity(run(f, [x, W], where=where), run(f, [x, W], mode='never'))


@pytest.mark.parametrize('stride,pad', [(1, 1), (2, 0)])
@pytest.mark.parametrize('where', ['numpy', 'device'])
def test_depthwise_convolution_2d_parity(stride, pad, where, rng, run, parity):
    x = rng.standard_normal((2, 3, 7, 7)).astype(numpy.float32)
    W = rng.standard_normal((2, 3, 3, 3)).astype(numpy.float32)
    b = rng.standard_normal(6).astype(numpy.float32)

    def f(*a):
        return F.depthwise_convolution_2d(*a, stride=stride, pad=pad)
    parity(run(f, [x, W, b], where=where), run(f, [x, W, b], mode='never'))


@pytest.mark.parametrize('where', ['numpy', 'device'])
def test_dilated_convolution_2d_parity(where, rng, run, parity):
    x = rng.standard_normal((2, 3, 9, 9)).astype(numpy.float32)
    W = rng.standard_normal((4, 3, 3, 3)).astype(numpy.float32)

    def f(*a):
        return F.dilated_convolution_2d(*a, pad=1, dilate=2, cover_all=True,
                                        stride=2)
    parity(run(f, [x, W], where=where), run(f, [x, W], mode='never'))


def test_non_contiguous_inputs(rng):
    x = rng.standard_normal((2, 8, 9, 9)).astype(numpy.float32)[:, ::2]
    x = x.transpose(0, 1, 3, 2)
    W = rng.standard_normal((3, 8, 4, 3, 3)).astype(numpy.float32)[:, ::2, 0]
    assert not x.flags.c_contiguous and not W.flags.c_contiguous
    with using_config('use_ideep', 'never'):
        ref = F.convolution_2d(x, W, pad=1).array
    with using_config('use_ideep', 'always'):
        got = F.convolution_2d(x, W, pad=1).array
    assert isinstance(got, numpy.ndarray)
    numpy.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)


def test_double_backward_on_device(rng):
    """Gradients of gradients run through the same routes and agree."""
    x = rng.standard_normal((2, 3, 6, 6)).astype(numpy.float32)
    W = rng.standard_normal((4, 3, 3, 3)).astype(numpy.float32)
    b = rng.standard_normal(4).astype(numpy.float32)
    out = {}
    for mode, send in (('never', lambda a: a.copy()),
                       ('always', intel64.from_numpy)):
        with using_config('use_ideep', mode):
            xv, Wv, bv = (Variable(send(a)) for a in (x, W, b))
            y = F.convolution_2d(xv, Wv, bv, pad=1)
            gx, gW, gb = _grad(F.sum(y * y), (xv, Wv, bv))
            _grad(F.sum(gx * gx) + F.sum(gW * gW) + F.sum(gb * gb),
                  (xv, Wv, bv), out.setdefault(mode, []))
    for got, ref in zip(out['always'], out['never']):
        numpy.testing.assert_allclose(got, ref, rtol=1e-3,
                                      atol=1e-3 * numpy.abs(ref).max())


def _grad(y, xs, store=None):
    from cpuframe import grad
    gs = grad([y], list(xs), enable_double_backprop=True)
    if store is not None:
        store.extend(numpy.asarray(g.array) for g in gs)
    return gs


def test_weight_adopts_layout_once_and_gradient_matches_it(rng, dnnl):
    x = intel64.from_numpy(rng.standard_normal((2, 16, 8, 8)).astype(numpy.float32))
    w0 = rng.standard_normal((32, 16, 3, 3)).astype(numpy.float32)
    W = Variable(intel64.from_numpy(w0))
    with using_config('use_ideep', 'always'):
        y = F.convolution_2d(x, W, pad=1)
        y.grad = intel64.mdarray.zeros_like(y.array)
        y.backward()
    assert W.array.is_plain is False or W.array.format == 'abcd'
    assert W.grad.same_layout(W.array)
    numpy.testing.assert_array_equal(numpy.asarray(W.array), w0)
