"""Parity of the oneDNN batch normalization routes with the NumPy path.

batch_normalization (batch statistics, running averages updated in place,
numpy or mdarray) and fixed_batch_normalization (given statistics), forward
and every gradient, for (N, C) to (N, C, D, H, W) inputs on NumPy (also
non-contiguous) and on mdarrays in plain, NHWC and blocked layouts; other
axis choices fall back to NumPy.
"""
import numpy
import pytest
from testhelpers.intel64_layouts import as_layout

import cpuframe
import cpuframe.functions as F
import cpuframe.links as L
from cpuframe import Variable
from cpuframe.backends import intel64
from cpuframe.configuration import using_config

LAYOUTS = ['numpy', 'strided', 'transposed', 'plain', 'nhwc', 'blocked']
NUMPY_LAYOUTS = ('numpy', 'strided', 'transposed')




def check(got, ref, scale=1.0):
    for k, r in ref.items():
        if not isinstance(r, numpy.ndarray):
            continue
        tol = 2e-5 * scale * max(1.0, float(numpy.abs(r).max()))
        numpy.testing.assert_allclose(got[k], r, rtol=1e-4, atol=tol,
                                      err_msg=k)


def params(rng, c, shape=None):
    shape = (c,) if shape is None else shape
    gamma = rng.uniform(0.5, 1.5, shape).astype(numpy.float32)
    beta = rng.standard_normal(shape).astype(numpy.float32)
    return gamma, beta


def run_bn(x, gamma, beta, layout, mode, param_layout=None, stats=None,
           gy=None, **kwargs):
    """y, the gradients and the updated running statistics, as NumPy."""
    on_device = layout not in NUMPY_LAYOUTS
    param_layout = param_layout or ('plain' if on_device else 'numpy')
    gv = Variable(as_layout(gamma, param_layout))
    bv = Variable(as_layout(beta, param_layout))
    mean = var = None
    if stats is not None:
        mean, var = (as_layout(s, param_layout) for s in stats)
    with using_config('use_ideep', mode):
        xv = Variable(as_layout(x, layout))
        y = F.batch_normalization(xv, gv, bv, running_mean=mean,
                                  running_var=var, **kwargs)
        if gy is None:
            gy = numpy.random.default_rng(5).standard_normal(
                x.shape).astype(numpy.float32)
        y.grad = gy
        y.backward()
    out = dict(y=numpy.asarray(y.array), gx=numpy.asarray(xv.grad),
               ggamma=numpy.asarray(gv.grad), gbeta=numpy.asarray(bv.grad),
               types=(type(y.array), type(xv.grad), type(gv.grad),
                      type(bv.grad)))
    if stats is not None:
        out['mean'] = numpy.asarray(mean)
        out['var'] = numpy.asarray(var)
        out['stat_types'] = (type(mean), type(var))
    return out


BN_SHAPES = [(5, 3), (1, 4), (4, 3, 7), (2, 5, 4, 3), (1, 16, 5, 5),
             (3, 17, 3, 4), (2, 3, 3, 4, 2)]


@pytest.mark.parametrize('shape', BN_SHAPES)
@pytest.mark.parametrize('layout', LAYOUTS)
def test_batch_normalization_parity(shape, layout, rng, calls):
    x = (rng.standard_normal(shape) * 2 + 0.5).astype(numpy.float32)
    gamma, beta = params(rng, shape[1])
    ref = run_bn(x, gamma, beta, 'numpy', 'never')
    assert calls.names == []
    got = run_bn(x, gamma, beta, layout, 'always')
    check(got, ref)
    assert calls.names == ['batch_normalization_forward',
                           'batch_normalization_backward']
    want = numpy.ndarray if layout in NUMPY_LAYOUTS else \
        intel64.mdarray
    assert got['types'] == (want,) * 4


@pytest.mark.parametrize('eps,decay', [(2e-5, 0.9), (1e-3, 0.5), (0.1, 0.0)])
@pytest.mark.parametrize('layout,stat_layout', [
    ('numpy', 'numpy'), ('blocked', 'plain'), ('nhwc', 'numpy')])
def test_running_statistics_update(eps, decay, layout, stat_layout, rng,
                                   calls):
    # In place, with the unbiased variance m / (m - 1) * var.
    x = (rng.standard_normal((3, 16, 4, 5)) + 1).astype(numpy.float32)
    gamma, beta = params(rng, 16)
    stats = (rng.standard_normal(16).astype(numpy.float32),
             rng.uniform(0.5, 2, 16).astype(numpy.float32))
    ref = run_bn(x, gamma, beta, 'numpy', 'never', stats=stats, eps=eps,
                 decay=decay)
    got = run_bn(x, gamma, beta, layout, 'always', param_layout=stat_layout,
                 stats=stats, eps=eps, decay=decay)
    check(got, ref)
    want = intel64.mdarray if stat_layout == 'plain' else numpy.ndarray
    assert got['stat_types'] == (want, want)
    assert 'batch_normalization_forward' in calls.names


def test_gradients_of_numpy_parameters_stay_numpy(rng):
    # x on the device, gamma and beta NumPy arrays: their gradients come in
    # their own type, gx in x's.
    x = rng.standard_normal((2, 16, 3, 3)).astype(numpy.float32)
    gamma, beta = params(rng, 16)
    ref = run_bn(x, gamma, beta, 'numpy', 'never')
    got = run_bn(x, gamma, beta, 'blocked', 'never', param_layout='numpy')
    check(got, ref)
    assert got['types'] == (intel64.mdarray, intel64.mdarray, numpy.ndarray,
                            numpy.ndarray)


@pytest.mark.parametrize('axis,gshape', [
    ((0, 2, 3), (4,)),   # the default spelled out: routed
    (0, (4, 3, 2)),      # per-position parameters: NumPy
    ((0, 1), (3, 2)),
])
def test_axis(axis, gshape, rng, calls):
    x = rng.standard_normal((5, 4, 3, 2)).astype(numpy.float32)
    gamma, beta = params(rng, None, gshape)
    ref = run_bn(x, gamma, beta, 'numpy', 'never', axis=axis)
    got = run_bn(x, gamma, beta, 'numpy', 'always', axis=axis)
    check(got, ref)
    routed = 'batch_normalization_forward' in calls.names
    assert routed == (axis == (0, 2, 3))


def test_numpy_backward_after_onednn_forward(rng, calls):
    # The NumPy gradient uses the statistics the oneDNN forward left.
    x = rng.standard_normal((4, 3, 5, 5)).astype(numpy.float32)
    gamma, beta = params(rng, 3)
    gy = rng.standard_normal(x.shape).astype(numpy.float32)
    ref = run_bn(x, gamma, beta, 'numpy', 'never', gy=gy)
    xv, gv, bv = Variable(x), Variable(gamma), Variable(beta)
    with using_config('use_ideep', 'always'):
        y = F.batch_normalization(xv, gv, bv)
    y.grad = gy
    with using_config('use_ideep', 'never'):
        y.backward()
    assert calls.names == ['batch_normalization_forward']
    check(dict(gx=xv.grad, ggamma=gv.grad, gbeta=bv.grad),
          {k: ref[k] for k in ('gx', 'ggamma', 'gbeta')})


def test_double_backward(rng):
    # The second order is built of NumPy FunctionNodes from the statistics
    # of the oneDNN forward.
    x = rng.standard_normal((4, 3, 3, 3)).astype(numpy.float32)
    gamma, beta = params(rng, 3)
    ggx = rng.standard_normal(x.shape).astype(numpy.float32)
    results = []
    for mode, layout in (('never', 'numpy'), ('always', 'numpy'),
                         ('always', 'plain')):
        with using_config('use_ideep', mode):
            xv = Variable(as_layout(x, layout))
            gv = Variable(as_layout(gamma, layout))
            y = F.batch_normalization(xv, gv, Variable(beta))
            gx, = cpuframe.grad([F.sum(y * y)], [xv],
                                enable_double_backprop=True)
            g2 = cpuframe.grad([gx], [xv, gv], [Variable(ggx)])
        results.append([numpy.asarray(gx.array)] +
                       [numpy.asarray(g.array) for g in g2])
    for got in results[1:]:
        for g, r in zip(got, results[0]):
            numpy.testing.assert_allclose(
                g, r, rtol=1e-3, atol=1e-3 * max(1, numpy.abs(r).max()))


FIXED_SHAPES = [(5, 3), (4, 3, 7), (2, 5, 4, 3), (1, 16, 5, 5),
                (2, 3, 3, 4, 2)]


@pytest.mark.parametrize('shape', FIXED_SHAPES)
@pytest.mark.parametrize('layout', LAYOUTS)
@pytest.mark.parametrize('eps', [2e-5, 0.3])
def test_fixed_batch_normalization_parity(shape, layout, eps, rng, calls):
    x = rng.standard_normal(shape).astype(numpy.float32)
    c = shape[1]
    gamma, beta = params(rng, c)
    mean = rng.standard_normal(c).astype(numpy.float32)
    var = rng.uniform(0.5, 2, c).astype(numpy.float32)
    gy = rng.standard_normal(shape).astype(numpy.float32)
    outs = []
    for lay, mode in (('numpy', 'never'), (layout, 'always')):
        plain = 'numpy' if lay in NUMPY_LAYOUTS else 'plain'
        vs = [Variable(as_layout(x, lay))] + [
            Variable(as_layout(a, plain)) for a in (gamma, beta, mean, var)]
        with using_config('use_ideep', mode):
            y = F.fixed_batch_normalization(*vs, eps=eps)
            y.grad = gy
            y.backward()
        outs.append(dict(y=numpy.asarray(y.array), type=type(y.array),
                         **{'g%d' % i: numpy.asarray(v.grad)
                            for i, v in enumerate(vs)}))
    check(outs[1], outs[0])
    assert calls.names[:1] == ['batch_normalization_inference']
    want = numpy.ndarray if layout in NUMPY_LAYOUTS else \
        intel64.mdarray
    assert outs[1]['type'] is want


def test_link_on_the_device_matches_numpy(rng):
    # L.BatchNormalization: training updates the (device) running averages,
    # test mode uses them.
    x = (rng.standard_normal((4, 16, 5, 5)) * 3 + 1).astype(numpy.float32)
    ref_link = L.BatchNormalization(16)
    dev_link = L.BatchNormalization(16)
    dev_link.to_intel64()
    assert intel64.is_native_array(dev_link.avg_mean)
    with using_config('use_ideep', 'never'):
        y_ref = ref_link(x)
    y_dev = dev_link(intel64.from_numpy(x))
    numpy.testing.assert_allclose(numpy.asarray(y_dev.array), y_ref.array,
                                  rtol=1e-4, atol=1e-4)
    for name in ('avg_mean', 'avg_var'):
        numpy.testing.assert_allclose(
            numpy.asarray(getattr(dev_link, name)),
            getattr(ref_link, name), rtol=1e-5, atol=1e-6)
    with using_config('train', False):
        with using_config('use_ideep', 'never'):
            y_ref = ref_link(x)
        y_dev = dev_link(intel64.from_numpy(x))
    assert intel64.is_native_array(y_dev.array)
    numpy.testing.assert_allclose(numpy.asarray(y_dev.array), y_ref.array,
                                  rtol=1e-4, atol=1e-4)


def test_auto_routes_only_large_inputs(rng, calls):
    gamma, beta = params(rng, 16)
    small = rng.standard_normal((2, 16, 4, 4)).astype(numpy.float32)
    large = rng.standard_normal((8, 16, 16, 16)).astype(numpy.float32)
    with using_config('use_ideep', 'auto'):
        F.batch_normalization(small, gamma, beta)
        F.fixed_batch_normalization(small, gamma, beta, beta, gamma)
        assert calls.names == []
        F.batch_normalization(large, gamma, beta)
        F.fixed_batch_normalization(large, gamma, beta, beta, gamma)
        assert calls.names == ['batch_normalization_forward',
                               'batch_normalization_inference']
        # On the device the same rule, unless the layout is not plain.
        F.batch_normalization(as_layout(small, 'plain'), gamma, beta)
        assert len(calls.names) == 2
        F.batch_normalization(as_layout(small, 'blocked'), gamma, beta)
        assert calls.names[-1] == 'batch_normalization_forward'


def test_steady_state_creates_no_primitives(rng):
    d = intel64.native()
    x = as_layout(rng.standard_normal((2, 16, 5, 5)).astype(numpy.float32),
                  'blocked')
    gamma, beta = (intel64.from_numpy(a) for a in params(rng, 16))

    def step():
        v = Variable(x)
        y = F.batch_normalization(v, Variable(gamma), Variable(beta))
        y.grad = intel64.mdarray.zeros_like(y.array)
        y.backward()
    step()
    before = d.primitive_cache_stats()['creations']
    d.reset_reorder_stats()
    step()
    assert d.primitive_cache_stats()['creations'] == before
    assert d.reorder_stats()['count'] == 0


def test_bad_input_raises(dnnl, rng):
    x = rng.standard_normal((2, 3, 4)).astype(numpy.float32)
    g = numpy.ones(3, numpy.float32)
    with pytest.raises(ValueError, match='batch_normalization_forward'):
        dnnl.batch_normalization_forward(x, numpy.ones(4, numpy.float32), g,
                                         1e-5)
    with pytest.raises(ValueError, match='batch_normalization_forward'):
        dnnl.batch_normalization_forward(x[0], g, g, 1e-5)
    with pytest.raises(TypeError, match='batch_normalization_inference'):
        dnnl.batch_normalization_inference(x, g, g, g.astype(int), g, 1e-5)
    y, mean, var, ctx = dnnl.batch_normalization_forward(x, g, g, 1e-5)
    with pytest.raises(ValueError, match='batch_normalization_backward'):
        dnnl.batch_normalization_backward(x, g, x[:1], ctx)


def _edge_case(kind, shape, rng):
    x = (rng.standard_normal(shape) * 2 + 0.5).astype(numpy.float32)
    gy = rng.standard_normal(shape).astype(numpy.float32)
    first = (0, 1) + (0,) * (len(shape) - 2)
    last = (shape[0] - 1, 1) + tuple(s - 1 for s in shape[2:])
    if kind == 'huge_x':  # the variance overflows: r = 0 in that channel
        x[first] = 3e38
    elif kind == 'huge_pair':
        x[first], x[last] = 3e38, -3e38
    elif kind == 'large_x':  # finite variance, but (x - mean) * gy overflows
        x[first] = 1e19
        gy[last] = 1e22
    elif kind == 'huge_gy':
        gy[first] = 3e38
        gy[last] = 3e38
    elif kind == 'inf_x':
        x[first] = numpy.inf
    elif kind == 'nan_x':
        x[first] = numpy.nan
    elif kind == 'inf_gy':
        gy[first] = -numpy.inf
    elif kind == 'nan_gy':
        gy[first] = numpy.nan
    return x, gy


def check_special(got, ref, kind):
    # The same NaN and infinities as the NumPy path, the rest close to it
    # (large_x's channel 1 is ill-conditioned: gx there is a difference of
    # terms ~1e4 times its size, so only its finiteness is compared).
    if kind == 'large_x':
        got, ref = dict(got), dict(ref)
        for out in (got, ref):
            out['gx'] = numpy.isfinite(out['gx']).astype(numpy.float32)
    for k in ('y', 'gx', 'ggamma', 'gbeta'):
        g, r = got[k], ref[k]
        numpy.testing.assert_array_equal(numpy.isnan(g), numpy.isnan(r),
                                         err_msg=k)
        numpy.testing.assert_array_equal(numpy.isposinf(g),
                                         numpy.isposinf(r), err_msg=k)
        numpy.testing.assert_array_equal(numpy.isneginf(g),
                                         numpy.isneginf(r), err_msg=k)
        ok = numpy.isfinite(r)
        scale = max(1.0, float(numpy.abs(r[ok]).max())) if ok.any() else 1
        numpy.testing.assert_allclose(g[ok], r[ok], rtol=1e-4,
                                      atol=2e-5 * scale, err_msg=k)


EDGE_KINDS = ['huge_x', 'huge_pair', 'large_x', 'huge_gy', 'inf_x', 'nan_x',
              'inf_gy', 'nan_gy']


@pytest.mark.parametrize('kind', EDGE_KINDS)
@pytest.mark.parametrize('shape', [(4, 3, 5, 5), (16, 32, 8, 8), (6, 3)])
@pytest.mark.parametrize('layout', ['numpy', 'plain', 'blocked'])
def test_special_values_match_numpy_path(kind, shape, layout, rng):
    # Issue 29: one 3e38 in a channel made oneDNN's whole gx of that
    # channel NaN (its sum of (x - mean) * gy overflows, times r = 0).
    x, gy = _edge_case(kind, shape, rng)
    gamma, beta = params(rng, shape[1])
    with numpy.errstate(all='ignore'):
        ref = run_bn(x, gamma, beta, 'numpy', 'never', gy=gy)
        got = run_bn(x, gamma, beta, layout, 'always', gy=gy)
    check_special(got, ref, kind)


@pytest.mark.parametrize('kind', ['inf_x', 'nan_x', 'huge_x', 'inf_var',
                                  'huge_var', 'nan_mean', 'huge_mean'])
@pytest.mark.parametrize('layout', ['numpy', 'plain', 'blocked'])
def test_fixed_special_values_match_numpy_path(kind, layout, rng):
    shape = (4, 3, 5, 5)
    x = (rng.standard_normal(shape) * 2 + 0.5).astype(numpy.float32)
    gamma, beta = params(rng, 3)
    mean = rng.standard_normal(3).astype(numpy.float32)
    var = rng.uniform(0.5, 2, 3).astype(numpy.float32)
    special = {'inf_x': numpy.inf, 'nan_x': numpy.nan, 'huge_x': 3e38}
    if kind in special:
        x[0, 1, 0, 0] = special[kind]
    elif kind == 'inf_var':
        var[1] = numpy.inf
    elif kind == 'huge_var':
        var[1] = 3e38
    elif kind == 'nan_mean':
        mean[1] = numpy.nan
    else:
        mean[1] = -3e38
    outs = {}
    for mode, lay in (('never', 'numpy'), ('always', layout)):
        plain = 'numpy' if lay in NUMPY_LAYOUTS else 'plain'
        with using_config('use_ideep', mode), numpy.errstate(all='ignore'):
            y = F.fixed_batch_normalization(
                Variable(as_layout(x, lay)), as_layout(gamma, plain),
                as_layout(beta, plain), as_layout(mean, plain),
                as_layout(var, plain))
        outs[mode] = numpy.asarray(y.array)
    got, ref = outs['always'], outs['never']
    for test in (numpy.isnan, numpy.isposinf, numpy.isneginf):
        numpy.testing.assert_array_equal(test(got), test(ref))
    ok = numpy.isfinite(ref)
    numpy.testing.assert_allclose(got[ok], ref[ok], rtol=1e-4, atol=1e-4)
