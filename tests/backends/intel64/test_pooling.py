"""Parity of the oneDNN pooling routes with the NumPy path.

max_pooling_2d/nd and average_pooling_2d/nd, forward and gradient, over
ksize, stride, pad, cover_all, odd sizes, batch 1 and 1-D/2-D/3-D, on NumPy
inputs (also non-contiguous) and on mdarrays in plain, NHWC and blocked
layouts; the cases oneDNN cannot reproduce (windows wholly in the padding,
return_indices) fall back to NumPy.
"""
import numpy
import pytest
from testhelpers.intel64_layouts import as_layout

import cpuframe
import cpuframe.functions as F
from cpuframe import Variable
from cpuframe.backends import intel64
from cpuframe.configuration import using_config
from cpuframe.functions.pooling.max_pooling_nd import MaxPoolingND

LAYOUTS = ['numpy', 'strided', 'transposed', 'plain', 'nhwc', 'blocked']
NUMPY_LAYOUTS = ('numpy', 'strided', 'transposed')


def run(f, x, layout, mode, gy=None, double=False):
    """Forward and gradient of ``f`` at ``x`` as NumPy arrays (and types).

    With ``double``, also ``ggy``: the gradient of ``sum(gx * ggx)`` w.r.t.
    ``gy`` (the gradient of the gradient node).
    """
    with using_config('use_ideep', mode):
        v = Variable(as_layout(x, layout))
        y = f(v)
        if gy is None:
            gy = numpy.random.default_rng(7).standard_normal(
                y.shape).astype(numpy.float32)
        gyv = Variable(gy)
        gx, = cpuframe.grad([y], [v], [gyv], enable_double_backprop=double)
        out = dict(y_type=type(y.array), gx_type=type(gx.array),
                   y=numpy.asarray(y.array), gx=numpy.asarray(gx.array))
        if double:
            ggx = numpy.random.default_rng(8).standard_normal(
                x.shape).astype(numpy.float32)
            ggy, = cpuframe.grad([gx], [gyv], [Variable(ggx)])
            out['ggy'] = numpy.asarray(ggy.array)
        return out


def check(got, ref, keys=('y', 'gx')):
    for k in keys:
        r = ref[k]
        tol = 1e-5 * max(1.0, float(numpy.abs(r).max()))
        numpy.testing.assert_allclose(got[k], r, rtol=1e-5, atol=tol,
                                      err_msg=k)


def expect_types(out, layout):
    want = numpy.ndarray if layout in NUMPY_LAYOUTS else intel64.mdarray
    assert out['y_type'] is want and out['gx_type'] is want


MAX_2D = [
    dict(x=(2, 3, 7, 9), ksize=3, stride=2, pad=1),
    dict(x=(2, 3, 7, 9), ksize=3, stride=2, pad=1, cover_all=False),
    dict(x=(1, 4, 8, 8), ksize=2),
    dict(x=(2, 3, 8, 8), ksize=3, stride=2, pad=0, cover_all=True),
    dict(x=(2, 3, 6, 7), ksize=3, stride=1, pad=1),
    dict(x=(1, 5, 9, 7), ksize=(3, 2), stride=(2, 3), pad=(1, 0)),
    dict(x=(2, 3, 5, 5), ksize=2, stride=3),
    dict(x=(3, 2, 11, 11), ksize=3, stride=2, pad=2),
    dict(x=(1, 17, 13, 13), ksize=3, stride=2),
]


@pytest.mark.parametrize('case', MAX_2D)
@pytest.mark.parametrize('layout', LAYOUTS)
def test_max_pooling_2d_parity(case, layout, rng, calls):
    x = rng.standard_normal(case['x']).astype(numpy.float32)
    opts = {k: v for k, v in case.items() if k != 'x'}

    def f(v):
        return F.max_pooling_2d(v, **opts)
    ref = run(f, x, 'numpy', 'never')
    assert calls.names == []
    got = run(f, x, layout, 'always')
    check(got, ref)
    expect_types(got, layout)
    assert calls.names.count('pooling_forward') == 1
    assert calls.names.count('pooling_backward') == 1


@pytest.mark.parametrize('nd,shape,opts', [
    (1, (2, 3, 11), dict(ksize=3, stride=2, pad=1)),
    (1, (1, 4, 10), dict(ksize=4, stride=3, cover_all=True)),
    (3, (2, 3, 5, 6, 7), dict(ksize=2, stride=2, pad=1, cover_all=False)),
    (3, (1, 2, 7, 5, 6), dict(ksize=(3, 2, 3), stride=(2, 1, 2),
                              cover_all=False)),
])
@pytest.mark.parametrize('layout', ['numpy', 'plain', 'nhwc', 'blocked'])
def test_max_pooling_nd_parity(nd, shape, opts, layout, rng, calls):
    x = rng.standard_normal(shape).astype(numpy.float32)

    def f(v):
        return F.max_pooling_nd(v, **opts)
    ref = run(f, x, 'numpy', 'never')
    got = run(f, x, layout, 'always')
    check(got, ref)
    expect_types(got, layout)
    assert 'pooling_backward' in calls.names


@pytest.mark.parametrize('layout', ['numpy', 'plain', 'blocked'])
def test_max_pooling_ties_go_to_the_first_maximum(layout, calls):
    # ReLU outputs are full of equal zeros: the gradient goes to the first
    # maximum of each window on both paths.
    x = numpy.zeros((2, 16, 7, 7), numpy.float32)
    x[:, :, 3, 3] = 1
    x[:, :, 1, 5] = 1

    def f(v):
        return F.max_pooling_2d(v, 3, 1, 1)
    gy = numpy.ones((2, 16, 7, 7), numpy.float32)
    ref = run(f, x, 'numpy', 'never', gy=gy)
    got = run(f, x, layout, 'always', gy=gy)
    numpy.testing.assert_array_equal(got['gx'], ref['gx'])
    assert 'pooling_backward' in calls.names


@pytest.mark.parametrize('opts', [
    dict(ksize=2, stride=2, pad=2),                  # pad >= ksize
    dict(ksize=3, stride=3, pad=2, cover_all=True),  # last window in padding
])
@pytest.mark.parametrize('layout', ['numpy', 'plain'])
def test_max_pooling_windows_in_padding_fall_back(opts, layout, rng, calls):
    # A window lying wholly in the padding is -inf on the NumPy path and
    # oneDNN's lowest float there: such cases stay on NumPy.
    x = rng.standard_normal((2, 3, 4, 4)).astype(numpy.float32)

    def f(v):
        return F.max_pooling_2d(v, **opts)
    ref = run(f, x, 'numpy', 'never')
    assert numpy.isneginf(ref['y']).any()
    got = run(f, x, layout, 'always')
    numpy.testing.assert_array_equal(got['y'], ref['y'])
    numpy.testing.assert_array_equal(got['gx'], ref['gx'])
    assert 'pooling_forward' not in calls.names


def test_max_pooling_return_indices_falls_back(rng, calls):
    x = rng.standard_normal((2, 3, 6, 6)).astype(numpy.float32)
    with using_config('use_ideep', 'always'):
        y, idx = F.max_pooling_2d(x, 2, return_indices=True)
    y_ref, idx_ref = F.max_pooling_2d(x, 2, return_indices=True)
    numpy.testing.assert_array_equal(y.array, y_ref.array)
    numpy.testing.assert_array_equal(idx, idx_ref)
    assert calls.names == []


@pytest.mark.parametrize('layout', ['numpy', 'plain'])
def test_max_pooling_double_backward(layout, rng, calls):
    # The second order reads the maxima from the retained x and y (NumPy),
    # then scatters again with oneDNN's workspace: both must agree.
    x = rng.standard_normal((2, 3, 7, 7)).astype(numpy.float32)

    def f(v):
        return F.max_pooling_2d(v, 3, 2, 1)
    ref = run(f, x, 'numpy', 'never', double=True)
    got = run(f, x, layout, 'always', double=True)
    check(got, ref, ('y', 'gx', 'ggy'))
    assert calls.names.count('pooling_backward') == 1


def test_max_pooling_numpy_backward_after_onednn_forward(rng, calls):
    # Forward on oneDNN, backward under 'never' (NumPy from the retained
    # arrays).
    x = rng.standard_normal((2, 3, 7, 7)).astype(numpy.float32)
    gy = rng.standard_normal((2, 3, 4, 4)).astype(numpy.float32)
    v = Variable(x)
    with using_config('use_ideep', 'always'):
        y = F.max_pooling_2d(v, 3, 2, 1)
    y.grad = gy
    with using_config('use_ideep', 'never'):
        y.backward()
    assert calls.names == ['pooling_forward']
    ref = run(lambda a: F.max_pooling_2d(a, 3, 2, 1), x, 'numpy', 'never',
              gy=gy)
    numpy.testing.assert_allclose(v.grad, ref['gx'], rtol=1e-6)


def test_max_pooling_without_backprop_keeps_no_workspace(rng):
    x = rng.standard_normal((2, 3, 8, 8)).astype(numpy.float32)
    with cpuframe.no_backprop_mode():
        y = F.max_pooling_2d(intel64.from_numpy(x), 2)
    numpy.testing.assert_array_equal(numpy.asarray(y.array),
                                     F.max_pooling_2d(x, 2).array)
    func = MaxPoolingND(2, 2)
    with cpuframe.no_backprop_mode():
        func.apply((intel64.from_numpy(x),))
    assert not func._intel64_ctx.has_workspace


AVG_2D = [
    dict(x=(2, 3, 7, 9), ksize=3, stride=2, pad=1),
    dict(x=(1, 4, 8, 8), ksize=2),
    dict(x=(2, 3, 6, 7), ksize=3, stride=1, pad=2),
    dict(x=(1, 5, 9, 6), ksize=(3, 2), stride=(2, 3), pad=(1, 1)),
    dict(x=(2, 3, 5, 5), ksize=2, stride=3),
    dict(x=(1, 17, 13, 13), ksize=3, stride=2, pad=1),
]


@pytest.mark.parametrize('case', AVG_2D)
@pytest.mark.parametrize('layout', LAYOUTS)
def test_average_pooling_2d_parity(case, layout, rng, calls):
    # Padding counts as zeros and every window is divided by kh * kw.
    x = rng.standard_normal(case['x']).astype(numpy.float32)
    opts = {k: v for k, v in case.items() if k != 'x'}

    def f(v):
        return F.average_pooling_2d(v, **opts)
    ref = run(f, x, 'numpy', 'never', double=True)
    got = run(f, x, layout, 'always', double=True)
    check(got, ref, ('y', 'gx', 'ggy'))
    expect_types(got, layout)
    # The gradient of the gradient is average pooling again.
    assert calls.names.count('pooling_forward') == 2
    assert calls.names.count('pooling_backward') == 1


@pytest.mark.parametrize('nd,shape,opts', [
    (1, (2, 3, 11), dict(ksize=3, stride=2, pad=1)),
    (2, (2, 3, 7, 6), dict(ksize=3, stride=2, pad=1)),
    (2, (1, 4, 5, 5), dict(ksize=(2, 3), stride=1, pad=(1, 2))),
    (3, (2, 3, 5, 6, 7), dict(ksize=2, stride=2, pad=1)),
])
@pytest.mark.parametrize('pad_value', [0, None])
@pytest.mark.parametrize('layout', ['numpy', 'plain', 'blocked'])
def test_average_pooling_nd_parity(nd, shape, opts, pad_value, layout, rng,
                                   calls):
    # pad_value=None leaves the padding out of each window's count.
    x = rng.standard_normal(shape).astype(numpy.float32)

    def f(v):
        return F.average_pooling_nd(v, pad_value=pad_value, **opts)
    ref = run(f, x, 'numpy', 'never')
    got = run(f, x, layout, 'always')
    check(got, ref)
    expect_types(got, layout)
    assert 'pooling_backward' in calls.names


@pytest.mark.parametrize('pad_value', [0, None])
def test_average_pooling_window_in_padding_falls_back(pad_value, rng, calls):
    # pad >= ksize: a window wholly in the padding (0 with pad_value=0, 0/0
    # with None on the NumPy path) stays on NumPy.
    x = rng.standard_normal((1, 2, 4, 4)).astype(numpy.float32)

    def f(v):
        return F.average_pooling_nd(v, 2, 2, 2, pad_value=pad_value)
    with numpy.errstate(invalid='ignore', divide='ignore'):
        ref = run(f, x, 'numpy', 'never')
        got = run(f, x, 'plain', 'always')
    numpy.testing.assert_array_equal(got['y'], ref['y'])
    assert calls.names == []


def test_auto_routes_only_large_inputs(rng, calls):
    small = rng.standard_normal((1, 2, 6, 6)).astype(numpy.float32)
    large = rng.standard_normal((2, 64, 128, 128)).astype(numpy.float32)
    from cpuframe.backends.intel64._routing import AUTO_MIN
    assert large.size >= AUTO_MIN['max_pooling'] > small.size
    assert large.size >= AUTO_MIN['average_pooling']
    with using_config('use_ideep', 'auto'):
        F.max_pooling_2d(small, 2)
        F.average_pooling_2d(small, 2)
        assert calls.names == []
        F.max_pooling_2d(large, 2)
        F.average_pooling_2d(large, 2)
        assert calls.names == ['pooling_forward'] * 2
        # On the device the same rule (plain buffers), and 'always'
        # routes every supported call.
        F.max_pooling_2d(intel64.from_numpy(small), 2)
        assert calls.names == ['pooling_forward'] * 2
    with using_config('use_ideep', 'always'):
        F.max_pooling_2d(intel64.from_numpy(small), 2)
    assert calls.names == ['pooling_forward'] * 3


def test_layout_is_kept_without_reorders(rng):
    d = intel64.native()
    x = as_layout(rng.standard_normal((2, 16, 9, 9)).astype(numpy.float32),
                  'blocked')
    v = Variable(x)
    y = F.max_pooling_2d(v, 3, 2)
    z = F.average_pooling_2d(y, 2, 1)
    d.reset_reorder_stats()
    z.grad = intel64.mdarray.zeros_like(z.array)
    z.backward()
    assert y.array.format == x.format and z.array.format == x.format
    assert v.grad.format == x.format
    assert d.reorder_stats()['count'] == 0


def test_steady_state_creates_no_primitives(rng):
    d = intel64.native()
    x = as_layout(rng.standard_normal((2, 16, 9, 9)).astype(numpy.float32),
                  'nhwc')

    def step():
        v = Variable(x)
        y = F.average_pooling_2d(F.max_pooling_2d(v, 3, 2, 1), 2)
        y.grad = intel64.mdarray.zeros_like(y.array)
        y.backward()
    step()
    before = d.primitive_cache_stats()['creations']
    step()
    assert d.primitive_cache_stats()['creations'] == before


def test_bad_input_raises(dnnl, rng):
    x = rng.standard_normal((2, 3, 5, 5)).astype(numpy.float32)
    with pytest.raises(TypeError, match='pooling_forward'):
        dnnl.pooling_forward(x.astype(numpy.float64), [2, 2], [2, 2], [0, 0],
                             [0, 0])
    with pytest.raises(ValueError, match='pooling_forward'):
        dnnl.pooling_forward(x, [2], [2], [0], [0])
    with pytest.raises(ValueError, match='pooling_forward'):
        dnnl.pooling_forward(x, [7, 7], [1, 1], [0, 0], [0, 0])
    with pytest.raises(ValueError, match='mode'):
        dnnl.pooling_forward(x, [2, 2], [2, 2], [0, 0], [0, 0], 'min')
    y, ctx = dnnl.pooling_forward(x, [2, 2], [2, 2], [0, 0], [0, 0], 'max',
                                  False)
    with pytest.raises(ValueError, match='workspace'):
        dnnl.pooling_backward(numpy.asarray(y), ctx)
    y, ctx = dnnl.pooling_forward(x, [2, 2], [2, 2], [0, 0], [0, 0])
    with pytest.raises(ValueError, match='pooling_backward'):
        dnnl.pooling_backward(x, ctx)
