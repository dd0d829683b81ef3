"""Convolution + bias + relu fusion on the Intel64 device.

On the device a convolution returns its output before computing it; relu
applied to that output, while nothing else can see it, becomes the
convolution's oneDNN post-op and returns the same tensor.  Results are the
NumPy path's: forward, every gradient, NaN/inf patterns; a held output, a
hook, debug mode or a non-finite input keep relu separate.
"""
import numpy
import pytest
from testhelpers.intel64_layouts import conv_args

import cpuframe
import cpuframe.functions as F
from cpuframe import Variable
from cpuframe.backends import intel64
from cpuframe.configuration import using_config
from cpuframe.function_hooks import TimerHook

CASES = [
    dict(x=(2, 4, 7, 7), w=(6, 4, 3, 3)),
    dict(x=(1, 3, 8, 6), w=(5, 3, 3, 2), stride=2, pad=1),
    dict(x=(2, 4, 9, 9), w=(4, 4, 3, 3), stride=2, pad=1, cover_all=True),
    dict(x=(2, 4, 9, 9), w=(6, 4, 3, 3), dilate=2, pad=2),
    dict(x=(2, 6, 7, 7), w=(9, 2, 3, 3), groups=3, pad=1),
    dict(x=(2, 8, 7, 7), w=(8, 1, 3, 3), groups=8, pad=1, stride=2),
    dict(x=(1, 16, 10, 10), w=(32, 16, 3, 3), pad=1),
    dict(x=(2, 3, 5, 6, 5), w=(4, 3, 3, 3, 3), pad=1),
    dict(x=(2, 3, 11), w=(4, 3, 3), stride=2, pad=1),
]


def _stats(dnnl):
    return dict(dnnl.deferred_stats())


def _delta(dnnl, before):
    now = _stats(dnnl)
    return {k: now[k] - before[k] for k in now}


def _close(got, expect):
    numpy.testing.assert_allclose(numpy.asarray(got), expect, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize('case', CASES)
@pytest.mark.parametrize('bias', [True, False])
def test_fused_conv_relu_parity(case, bias, rng, run, parity, dnnl):
    arrays, opts = conv_args(case, rng, bias)

    def f(*a):
        return F.relu(F.convolution_nd(*a, **opts))

    ref = run(f, arrays, mode='never')
    before = _stats(dnnl)
    got = run(f, arrays, mode='always', where='device')
    d = _delta(dnnl, before)
    # the forward convolution was deferred and relu folded into it (the
    # backward's convolutions are deferred too, but nothing fuses there)
    assert d['fused_relu'] == 1
    assert d['relu_postop'] + d['relu_loop'] == 1
    parity(got, ref)


def test_fused_output_is_the_convolution_tensor_and_computed_on_read(rng, dnnl):
    arrays, _ = conv_args(CASES[0], rng, True)
    x, W, b = [Variable(intel64.from_numpy(a)) for a in arrays]
    y = F.relu(F.convolution_2d(x, W, b))
    assert dnnl.is_pending(y.array)
    expect = numpy.maximum(F.convolution_2d(*arrays).array, 0)
    numpy.testing.assert_allclose(numpy.asarray(y.array), expect,
                                  rtol=1e-4, atol=1e-4)
    assert not dnnl.is_pending(y.array)


def test_held_output_is_not_fused(rng, dnnl):
    arrays, _ = conv_args(CASES[0], rng, True)
    x, W, b = [Variable(intel64.from_numpy(a)) for a in arrays]
    h = F.convolution_2d(x, W, b)
    before = _stats(dnnl)
    y = F.relu(h)
    assert _delta(dnnl, before)['fused_relu'] == 0
    conv = F.convolution_2d(*arrays).array
    # h keeps the convolution's values, y has relu's
    numpy.testing.assert_allclose(numpy.asarray(h.array), conv, rtol=1e-4, atol=1e-4)
    numpy.testing.assert_allclose(numpy.asarray(y.array), numpy.maximum(conv, 0),
                                  rtol=1e-4, atol=1e-4)


def test_output_held_in_a_list_or_by_its_array_is_not_fused(rng, dnnl):
    arrays, _ = conv_args(CASES[0], rng, False)
    x, W = [Variable(intel64.from_numpy(a)) for a in arrays]
    conv = F.convolution_2d(*arrays).array
    kept = [F.convolution_2d(x, W)]
    before = _stats(dnnl)
    F.relu(kept[0])
    assert _delta(dnnl, before)['fused_relu'] == 0
    _close(kept[0].array, conv)

    arrays_seen = []

    class Keep(cpuframe.LinkHook):
        name = 'keep'

        def forward_postprocess(self, args):
            arrays_seen.append(args.out.array)  # the array, not the Variable

    link = cpuframe.links.Convolution2D(4, 6, 3)
    link.W.array[...] = arrays[1]
    link.b.array[...] = 0
    link.to_intel64()
    link.add_hook(Keep())
    before = _stats(dnnl)
    F.relu(link(x))
    assert _delta(dnnl, before)['fused_relu'] == 0
    _close(arrays_seen[0], conv)


def test_function_hook_and_debug_keep_relu_separate(rng, dnnl):
    arrays, _ = conv_args(CASES[0], rng, True)
    x, W, b = [Variable(intel64.from_numpy(a)) for a in arrays]
    before = _stats(dnnl)
    with TimerHook():
        y1 = F.relu(F.convolution_2d(x, W, b))
    with using_config('debug', True):
        y2 = F.relu(F.convolution_2d(x, W, b))
    assert _delta(dnnl, before)['fused_relu'] == 0
    expect = numpy.maximum(F.convolution_2d(*arrays).array, 0)
    for y in (y1, y2):
        _close(y.array, expect)


@pytest.mark.parametrize('bad', [numpy.nan, numpy.inf, -numpy.inf])
@pytest.mark.parametrize('where', ['x', 'W', 'b'])
def test_non_finite_inputs_keep_the_numpy_nan_pattern(bad, where, rng, dnnl):
    arrays, _ = conv_args(CASES[0], rng, True)
    index = {'x': 0, 'W': 1, 'b': 2}[where]
    arrays[index].flat[3] = bad
    with numpy.errstate(invalid='ignore'):
        expect = F.relu(F.convolution_2d(*arrays, pad=1)).array
    x, W, b = [Variable(intel64.from_numpy(a)) for a in arrays]
    before = _stats(dnnl)
    y = numpy.asarray(F.relu(F.convolution_2d(x, W, b, pad=1)).array)
    # relu's post-op would turn NaN into 0: relu ran separately
    assert _delta(dnnl, before)['fused_relu'] == 0
    numpy.testing.assert_array_equal(numpy.isnan(y), numpy.isnan(expect))
    numpy.testing.assert_array_equal(numpy.isinf(y), numpy.isinf(expect))
    finite = numpy.isfinite(expect)
    numpy.testing.assert_allclose(y[finite], expect[finite], rtol=1e-4, atol=1e-3)


def test_inputs_written_after_a_deferred_convolution(rng, dnnl):
    arrays, _ = conv_args(CASES[0], rng, True)
    x, W, b = [Variable(intel64.from_numpy(a)) for a in arrays]
    expect = F.convolution_2d(*arrays).array
    h = F.convolution_2d(x, W, b)
    assert dnnl.is_pending(h.array)
    # in-place updates of the inputs (an optimizer step) come after the op:
    # the deferred values are those of the inputs the op was given
    W.array *= 2.0
    x.array[...] = 0.0
    numpy.testing.assert_allclose(numpy.asarray(h.array), expect, rtol=1e-4, atol=1e-4)

    x2, W2 = [Variable(intel64.from_numpy(a)) for a in arrays[:2]]
    y = F.relu(F.convolution_2d(x2, W2))
    W2.array -= W2.array  # zeroes W2 after relu was folded in
    numpy.testing.assert_allclose(
        numpy.asarray(y.array), numpy.maximum(F.convolution_2d(*arrays[:2]).array, 0),
        rtol=1e-4, atol=1e-4)


def test_unread_output_is_never_computed_and_frees(rng, dnnl):
    arrays, _ = conv_args(CASES[-3], rng, False)
    x, W = [Variable(intel64.from_numpy(a)) for a in arrays]
    before = _stats(dnnl)
    h = F.convolution_2d(x, W, pad=1)
    assert dnnl.is_pending(h.array)
    del h
    assert _delta(dnnl, before)['deferred'] == 1
    # nothing else pending: a settle has no work
    dnnl.settle_pending()


def test_numpy_inputs_are_not_deferred(rng, dnnl):
    arrays, _ = conv_args(CASES[0], rng, True)
    before = _stats(dnnl)
    with using_config('use_ideep', 'always'):
        y = F.relu(F.convolution_2d(*[Variable(a) for a in arrays]))
    assert isinstance(y.array, numpy.ndarray)
    assert _delta(dnnl, before)['deferred'] == 0


def test_training_step_with_fusion_matches_numpy_path():
    rng = numpy.random.default_rng(3)

    class Net(cpuframe.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.c1 = cpuframe.links.Convolution2D(3, 8, 3, pad=1)
                self.c2 = cpuframe.links.Convolution2D(8, 8, 3, stride=2)
                self.fc = cpuframe.links.Linear(None, 5)

        def forward(self, x):
            h = F.relu(self.c1(x))
            h = F.max_pooling_2d(F.relu(self.c2(h)), 2)
            return self.fc(h)

    x = rng.standard_normal((4, 3, 12, 12)).astype(numpy.float32)
    t = rng.integers(0, 5, 4).astype(numpy.int32)
    nets = []
    for device in ('numpy', 'intel64'):
        numpy.random.seed(0)
        net = Net()
        opt = cpuframe.optimizers.MomentumSGD(0.05)
        opt.setup(net)
        xs = x
        if device == 'intel64':
            net.to_intel64()
            xs = intel64.from_numpy(x)
        for _ in range(3):
            loss = F.softmax_cross_entropy(net(xs), t)
            net.cleargrads()
            loss.backward()
            opt.update()
        nets.append(net)
    for (name, p0), (_, p1) in zip(sorted(nets[0].namedparams()),
                                   sorted(nets[1].namedparams())):
        numpy.testing.assert_allclose(numpy.asarray(p1.array), numpy.asarray(p0.array),
                                      rtol=1e-3, atol=1e-4, err_msg=name)


# -- batch normalization (inference) + relu ----------------------------------

@pytest.mark.parametrize('shape', [(2, 16, 5, 5), (3, 7, 4, 6), (4, 32),
                                   (2, 8, 3, 4, 5)])
def test_fused_fixed_batch_normalization_relu_parity(shape, rng, run, parity, dnnl):
    c = shape[1]
    arrays = [rng.standard_normal(shape).astype(numpy.float32),
              rng.uniform(0.5, 1.5, c).astype(numpy.float32),
              rng.standard_normal(c).astype(numpy.float32),
              rng.standard_normal(c).astype(numpy.float32),
              rng.uniform(0.5, 2.0, c).astype(numpy.float32)]

    def f(*a):
        return F.relu(F.fixed_batch_normalization(*a))

    ref = run(f, arrays, mode='never')
    before = _stats(dnnl)
    got = run(f, arrays, mode='always', where='device')
    d = _delta(dnnl, before)
    assert d['fused_relu'] == 1 and d['relu_postop'] + d['relu_loop'] == 1
    parity(got, ref)


def test_batch_normalization_link_in_test_mode_fuses_relu(rng, dnnl):
    bn = cpuframe.links.BatchNormalization(8)
    x = rng.standard_normal((4, 8, 5, 5)).astype(numpy.float32)
    with using_config('train', True):
        for _ in range(3):
            bn(x * 2 + 1)  # some running statistics
    with using_config('train', False):
        expect = F.relu(bn(x)).array
    bn.to_intel64()
    before = _stats(dnnl)
    with using_config('train', False):
        got = F.relu(bn(intel64.from_numpy(x))).array
    assert _delta(dnnl, before)['fused_relu'] == 1
    _close(got, expect)


def test_nan_in_batch_normalization_input_keeps_nan(rng, dnnl):
    c = 6
    x = rng.standard_normal((2, c, 3, 3)).astype(numpy.float32)
    x[0, 2, 1, 1] = numpy.nan
    x[1, 4, 0, 0] = -numpy.inf
    vecs = [numpy.ones(c, numpy.float32), numpy.zeros(c, numpy.float32),
            numpy.zeros(c, numpy.float32), numpy.ones(c, numpy.float32)]
    expect = F.relu(F.fixed_batch_normalization(x, *vecs)).array
    before = _stats(dnnl)
    got = numpy.asarray(F.relu(F.fixed_batch_normalization(
        *[Variable(intel64.from_numpy(a)) for a in [x] + vecs])).array)
    assert _delta(dnnl, before)['fused_relu'] == 0
    numpy.testing.assert_array_equal(numpy.isnan(got), numpy.isnan(expect))
    ok = ~numpy.isnan(expect)
    _close(got[ok], expect[ok])


def test_sequential_passes_temporaries_so_relu_fuses(rng, dnnl):
    model = cpuframe.Sequential(cpuframe.links.Convolution2D(4, 6, 3, pad=1), F.relu,
                                cpuframe.links.Convolution2D(6, 5, 3), F.relu)
    x = rng.standard_normal((2, 4, 7, 7)).astype(numpy.float32)
    expect = model(x).array
    model.to_intel64()
    before = _stats(dnnl)
    got = model(intel64.from_numpy(x)).array
    assert _delta(dnnl, before)['fused_relu'] == 2
    _close(got, expect)
