"""Parity of the oneDNN local response normalization route with NumPy.

Chainer's LRN (n // 2 channels on each side, odd and even n alike) on
(N, C) to (N, C, D, H, W) inputs, forward and gradient, on NumPy (also
non-contiguous) and on mdarrays in plain, NHWC and blocked layouts.
"""
import numpy
import pytest
from testhelpers.intel64_layouts import as_layout

import cpuframe
import cpuframe.functions as F
from cpuframe import Variable
from cpuframe.backends import intel64
from cpuframe.configuration import using_config

LAYOUTS = ['numpy', 'strided', 'transposed', 'plain', 'nhwc', 'blocked']
NUMPY_LAYOUTS = ('numpy', 'strided', 'transposed')




def run(f, x, layout, mode, gy=None):
    """Forward and gradient of ``f`` at ``x`` as NumPy arrays (and types)."""
    with using_config('use_ideep', mode):
        v = Variable(as_layout(x, layout))
        y = f(v)
        if gy is None:
            gy = numpy.random.default_rng(7).standard_normal(
                y.shape).astype(numpy.float32)
        y.grad = gy
        y.backward()
        return dict(y=numpy.asarray(y.array), gx=numpy.asarray(v.grad),
                    types=(type(y.array), type(v.grad)))


def check(got, ref):
    for k in ('y', 'gx'):
        r = ref[k]
        tol = 1e-5 * max(1.0, float(numpy.abs(r).max()))
        numpy.testing.assert_allclose(got[k], r, rtol=1e-4, atol=tol,
                                      err_msg=k)


def expect_types(out, layout):
    want = numpy.ndarray if layout in NUMPY_LAYOUTS else intel64.mdarray
    assert out['types'] == (want, want)


LRN_CASES = [
    dict(shape=(2, 7, 5, 4)),
    dict(shape=(2, 16, 5, 5), n=3, k=1, alpha=0.5, beta=0.5),
    dict(shape=(1, 9, 3, 6), n=4, k=2.5, alpha=1e-2, beta=0.9),
    dict(shape=(2, 6, 4, 4), n=1, k=1, alpha=1, beta=1),
    dict(shape=(3, 5, 2, 3), n=6, k=0.5, alpha=0.3, beta=1.5),
    dict(shape=(2, 4, 3, 3), n=9, k=1, alpha=0.2, beta=0.75),  # n > C
    dict(shape=(4, 10)),
    dict(shape=(2, 8, 9), n=2, alpha=0.1),
    dict(shape=(1, 5, 3, 4, 3), n=3, alpha=0.1),
]


@pytest.mark.parametrize('case', LRN_CASES)
@pytest.mark.parametrize('layout', LAYOUTS)
def test_lrn_parity(case, layout, rng, calls):
    opts = {k: v for k, v in case.items() if k != 'shape'}
    x = (rng.standard_normal(case['shape']) * 2).astype(numpy.float32)

    def f(v):
        return F.local_response_normalization(v, **opts)
    ref = run(f, x, 'numpy', 'never')
    assert calls.names == []
    got = run(f, x, layout, 'always')
    check(got, ref)
    expect_types(got, layout)
    assert calls.names == ['lrn_forward', 'lrn_backward']


def test_numpy_backward_after_onednn_forward(rng, calls):
    x = rng.standard_normal((2, 7, 4, 4)).astype(numpy.float32)
    gy = rng.standard_normal(x.shape).astype(numpy.float32)
    ref = run(F.local_response_normalization, x, 'numpy', 'never', gy=gy)
    v = Variable(x)
    with using_config('use_ideep', 'always'):
        y = F.local_response_normalization(v)
    y.grad = gy
    with using_config('use_ideep', 'never'):
        y.backward()
    assert calls.names == ['lrn_forward']
    check(dict(y=y.array, gx=v.grad), ref)


def test_inference_forward_and_double_backward_error(rng, calls):
    # Without backprop no workspace is kept; the second order is refused
    # as in Chainer.
    x = rng.standard_normal((2, 7, 4, 4)).astype(numpy.float32)
    with cpuframe.no_backprop_mode():
        y = F.local_response_normalization(intel64.from_numpy(x))
    numpy.testing.assert_allclose(
        numpy.asarray(y.array), F.local_response_normalization(x).array,
        rtol=1e-5, atol=1e-6)
    v = Variable(intel64.from_numpy(x))
    y = F.local_response_normalization(v)
    gx, = cpuframe.grad([F.sum(y)], [v], enable_double_backprop=True)
    with pytest.raises(NotImplementedError, match='local_response'):
        cpuframe.grad([F.sum(gx)], [v])


def test_auto_routes_only_large_inputs(rng, calls):
    with using_config('use_ideep', 'auto'):
        F.local_response_normalization(
            rng.standard_normal((1, 4, 3, 3)).astype(numpy.float32))
        assert calls.names == []
        F.local_response_normalization(
            rng.standard_normal((8, 16, 32, 32)).astype(numpy.float32))
        assert calls.names == ['lrn_forward']


def test_layout_kept_and_no_new_primitives(rng):
    d = intel64.native()
    x = as_layout(rng.standard_normal((2, 16, 5, 5)).astype(numpy.float32),
                  'blocked')

    def step():
        v = Variable(x)
        y = F.local_response_normalization(v)
        y.grad = intel64.mdarray.zeros_like(y.array)
        y.backward()
        return y, v
    step()
    before = d.primitive_cache_stats()['creations']
    d.reset_reorder_stats()
    y, v = step()
    assert d.primitive_cache_stats()['creations'] == before
    assert d.reorder_stats()['count'] == 0
    assert y.array.format == x.format and v.grad.format == x.format


def test_bad_input_raises(dnnl, rng):
    x = rng.standard_normal((2, 3, 4)).astype(numpy.float32)
    with pytest.raises(ValueError, match='lrn_forward'):
        dnnl.lrn_forward(x[0, 0], 5, 2.0, 1e-4, 0.75)
    with pytest.raises(ValueError, match='lrn_forward'):
        dnnl.lrn_forward(x, 0, 2.0, 1e-4, 0.75)
    with pytest.raises(TypeError, match='lrn_forward'):
        dnnl.lrn_forward(x.astype(numpy.float16), 5, 2.0, 1e-4, 0.75)
    y, ctx = dnnl.lrn_forward(x, 5, 2.0, 1e-4, 0.75, False)
    with pytest.raises(ValueError, match='training'):
        dnnl.lrn_backward(x, x, ctx)
    y, ctx = dnnl.lrn_forward(x, 5, 2.0, 1e-4, 0.75)
    with pytest.raises(ValueError, match='lrn_backward'):
        dnnl.lrn_backward(x, x[:1], ctx)
