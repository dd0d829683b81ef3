"""Route choice ('never'/'auto'/'always'), array types at the boundary,
primitive caching in steady state, layout propagation, training parity and
bad input reaching the native layer."""
import numpy
import pytest

import cpuframe
import cpuframe.functions as F
import cpuframe.links as L
from cpuframe import Variable, optimizers
from cpuframe.backends import intel64
from cpuframe.configuration import using_config


@pytest.fixture
def calls(monkeypatch, dnnl):
    """Counts calls of the native kernels by name."""
    counts = {}

    def counted(name, f):
        def wrap(*args, **kwargs):
            counts[name] = counts.get(name, 0) + 1
            return f(*args, **kwargs)
        return wrap
    for name in ('convolution_forward', 'convolution_backward_data',
                 'convolution_backward_weights', 'linear_forward', 'relu',
                 'relu_grad', 'gemm_arrays'):
        monkeypatch.setattr(dnnl, name, counted(name, getattr(dnnl, name)))
    return counts


def _f32(rng, shape):
    return rng.standard_normal(shape).astype(numpy.float32)


@pytest.mark.parametrize('mode,expect', [('never', 0), ('auto', 1),
                                         ('always', 1)])
def test_convolution_route_choice(mode, expect, calls, rng):
    # 1.8M multiply-adds: past 'auto''s threshold (AUTO_MIN['convolution'])
    x, W = _f32(rng, (4, 16, 16, 16)), _f32(rng, (16, 16, 3, 3))
    with using_config('use_ideep', mode):
        y = F.convolution_2d(x, W)
    assert calls.get('convolution_forward', 0) == expect
    assert isinstance(y.array, numpy.ndarray)


@pytest.mark.parametrize('mode,expect', [('never', 0), ('auto', 0),
                                         ('always', 1)])
def test_small_cases_stay_on_numpy_under_auto(mode, expect, calls, rng):
    with using_config('use_ideep', mode):
        F.linear(_f32(rng, (2, 3)), _f32(rng, (4, 3)))
        F.relu(_f32(rng, (3, 5)))
        F.convolution_2d(_f32(rng, (1, 1, 5, 5)), _f32(rng, (1, 1, 3, 3)))
    # (a Linear on NumPy arrays: sgemm on them, not the inner product)
    assert calls.get('gemm_arrays', 0) == expect
    assert calls.get('relu', 0) == expect
    assert calls.get('convolution_forward', 0) == expect


@pytest.mark.parametrize('mode', ['never', 'auto', 'always'])
def test_linear_on_numpy_arrays_routes_to_sgemm(mode, calls, rng):
    # A Linear on float32 NumPy arrays: under 'always' oneDNN's sgemm on the
    # arrays (forward, input and weight gradients), never the inner product
    # with its weight reorder; 'auto' keeps NumPy's BLAS (linear._profitable)
    x = Variable(_f32(rng, (2, 3)))
    W = Variable(_f32(rng, (4, 3)))
    b = Variable(_f32(rng, (4,)))
    with using_config('use_ideep', mode):
        y = F.linear(x, W, b)
        gy = _f32(rng, (2, 4))
        y.grad = gy.copy()
        y.backward()
    assert calls.get('gemm_arrays', 0) == (3 if mode == 'always' else 0)
    assert 'linear_forward' not in calls
    assert all(type(a) is numpy.ndarray for a in
               (y.array, x.grad, W.grad, b.grad))
    want_y = x.array @ W.array.T + b.array
    numpy.testing.assert_allclose(y.array, want_y, rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(x.grad, gy @ W.array, rtol=1e-5,
                                  atol=1e-6)
    numpy.testing.assert_allclose(W.grad, gy.T @ x.array, rtol=1e-5,
                                  atol=1e-6)


def test_sgemm_of_linear_reads_views_in_place_and_checks_its_arguments(rng):
    # a transposed operand is read in place (the transposed flag), another
    # view copied once; the native call refuses what it cannot read, naming
    # the op
    from cpuframe.functions.connection.linear import _sgemm
    a = _f32(rng, (6, 5))
    b = _f32(rng, (5, 7))
    copies = []
    real = numpy.ascontiguousarray

    def counted(x, *args, **kwargs):
        copies.append(x.shape)
        return real(x, *args, **kwargs)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(numpy, 'ascontiguousarray', counted)
        for x, y in ((a, b), (a.T.copy().T, b), (a, b.T.copy().T),
                     (_f32(rng, (6, 10))[:, ::2], b[:, :3])):
            numpy.testing.assert_allclose(_sgemm(x, y, 'op'), x @ y,
                                          rtol=1e-5, atol=1e-5)
    # (only the last pair's operands, neither C- nor F-contiguous, copied)
    assert copies == [(5, 6), (3, 5)]
    native = intel64.native()
    with pytest.raises(TypeError, match='linear_forward: expected a as a '
                       'float32 NumPy array, got float64 ndarray'):
        native.gemm_arrays(a.astype(numpy.float64), b, False, False,
                           'linear_forward')
    with pytest.raises(ValueError, match=r'op: expected b C-contiguous \(or '
                       r'passed transposed\), got strides \(4, 20\)'):
        native.gemm_arrays(a, b.T.copy().T, True, False, 'op')
    with pytest.raises(ValueError, match='op: expected a with 2 dimensions, '
                       'got 1'):
        native.gemm_arrays(a[0], b, False, False, 'op')
    with pytest.raises(ValueError, match='op: the inner sizes differ'):
        native.gemm_arrays(a, b, True, False, 'op')
    empty = native.gemm_arrays(numpy.zeros((3, 0), numpy.float32),
                               numpy.zeros((0, 4), numpy.float32))
    numpy.testing.assert_array_equal(empty, numpy.zeros((3, 4)))


def test_large_cases_route_under_auto(calls, rng):
    with using_config('use_ideep', 'auto'):
        F.relu(_f32(rng, (16, 64, 32, 32)))
        F.convolution_2d(_f32(rng, (8, 16, 16, 16)), _f32(rng, (16, 16, 3, 3)))
    assert calls['relu'] == 1 and calls['convolution_forward'] == 1


def test_linear_on_numpy_stays_on_numpy_under_auto_but_not_on_device(
        calls, rng):
    x, W = _f32(rng, (128, 512)), _f32(rng, (256, 512))
    from cpuframe.backends.intel64._routing import AUTO_MIN
    assert 128 * 512 * 256 >= AUTO_MIN['linear_on_device']
    with using_config('use_ideep', 'auto'):
        F.linear(x, W)
        assert 'linear_forward' not in calls and 'gemm_arrays' not in calls
        y = F.linear(x, intel64.from_numpy(W))
    assert calls['linear_forward'] == 1
    assert intel64.is_native_array(y.array)


def test_auto_on_device_small_calls_take_the_numpy_path(calls, rng):
    # Below an op's size rule, 'auto' computes device arrays with NumPy (on
    # views of their plain buffers) and returns NumPy arrays, as an op
    # without a route does; 'always' routes them; results agree.
    a, w, b = _f32(rng, (32, 64)), _f32(rng, (16, 64)), _f32(rng, (16,))
    outs = {}
    for mode in ('auto', 'always'):
        x, W, bias = (Variable(intel64.from_numpy(v)) for v in (a, w, b))
        with using_config('use_ideep', mode):
            y = F.sum(F.relu(F.linear(x, W, bias)) + F.tanh(x[:, :16]))
            y.backward()
        outs[mode] = [numpy.asarray(v) for v in
                      (y.array, x.grad, W.grad, bias.grad)]
        if mode == 'auto':
            assert not calls
            assert isinstance(x.grad, numpy.ndarray)
            # the parameters stay on the device, untouched
            assert intel64.is_native_array(W.array) and W.array.is_plain
    assert 'linear_forward' in calls and 'relu' in calls
    for got, ref in zip(outs['auto'], outs['always']):
        numpy.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)


def test_auto_on_device_keeps_laid_out_arrays_on_the_route(calls, rng):
    # A blocked (or permuted) buffer would need a reorder for NumPy: the
    # route keeps its layout whatever the size.
    x = Variable(intel64.from_numpy(_f32(rng, (2, 8, 5, 5))).reorder('acdb'))
    with using_config('use_ideep', 'auto'):
        y = F.relu(x)
    assert calls['relu'] == 1
    assert y.array.format == 'acdb'


def test_float64_falls_back_even_always(calls, rng):
    x = rng.standard_normal((2, 3, 6, 6))
    W = rng.standard_normal((4, 3, 3, 3))
    with using_config('use_ideep', 'always'):
        y = F.convolution_2d(x, W)
        F.relu(x)
    assert not calls
    assert y.dtype == numpy.float64


def test_device_arrays_take_the_route_and_stay_native(calls, rng):
    # 'never' and 'always' route every supported call on device arrays;
    # 'auto' those its size rule approves (a convolution of 1M+ MACs).
    x = intel64.from_numpy(_f32(rng, (2, 3, 6, 6)))
    W = _f32(rng, (4, 3, 3, 3))
    for mode in ('never', 'always'):
        with using_config('use_ideep', mode):
            y = F.relu(F.convolution_2d(x, W))
        assert intel64.is_native_array(y.array)
    assert calls['convolution_forward'] == 2 and calls['relu'] == 2
    big = intel64.from_numpy(_f32(rng, (8, 16, 32, 32)))
    with using_config('use_ideep', 'auto'):
        y = F.convolution_2d(big, _f32(rng, (32, 16, 3, 3)))
    assert calls['convolution_forward'] == 3
    assert intel64.is_native_array(y.array)


def test_ops_without_a_route_see_numpy(rng):
    a = _f32(rng, (2, 3, 4, 5))
    x = Variable(intel64.from_numpy(a).reorder('acdb'))
    y = F.softplus(x)
    assert isinstance(y.array, numpy.ndarray)
    numpy.testing.assert_allclose(y.array, numpy.logaddexp(0, a), rtol=1e-5)
    y.grad = numpy.ones_like(y.array)
    y.backward()
    numpy.testing.assert_allclose(numpy.asarray(x.grad),
                                  1 / (1 + numpy.exp(-a)), rtol=1e-5)


def test_unsupported_input_on_device_falls_back(calls, rng):
    x = intel64.from_numpy(_f32(rng, (2, 3, 6, 6)))
    W = rng.standard_normal((4, 3, 3, 3))  # float64 filter: NumPy path
    y = F.convolution_2d(x, W)
    assert 'convolution_forward' not in calls
    assert isinstance(y.array, numpy.ndarray)


class _Net(cpuframe.Chain):
    def __init__(self, n_out=4):
        super().__init__()
        with self.init_scope():
            self.c1 = L.Convolution2D(3, 16, 3, pad=1)
            self.c2 = L.Convolution2D(16, 16, 3, pad=1, stride=2)
            self.fc = L.Linear(16 * 4 * 4, n_out)

    def forward(self, x):
        h = F.relu(self.c1(x))
        h = F.relu(self.c2(h))
        return self.fc(h)


def _train(device, mode, x, t, iters, seed=1, on_iter=None):
    numpy.random.seed(seed)
    model = L.Classifier(_Net())
    model.to_device(device)
    opt = optimizers.MomentumSGD(lr=0.05)
    opt.setup(model)
    xs = model.device.send(x)
    with using_config('use_ideep', mode):
        for i in range(iters):
            if on_iter:
                on_iter(i, 'start')
            model.cleargrads()
            loss = model(xs, t)
            loss.backward()
            opt.update()
            if on_iter:
                on_iter(i, 'end')
        with using_config('train', False):
            acc = float(F.accuracy(model.predictor(xs), t).array)
    return model, acc


def _data(n=32):
    rng = numpy.random.default_rng(3)
    t = rng.integers(0, 4, n).astype(numpy.int32)
    x = rng.standard_normal((n, 3, 8, 8)).astype(numpy.float32) * 0.5
    for k in range(4):  # a class is a bright quadrant
        sel = t == k
        x[sel, :, (k // 2) * 4:(k // 2) * 4 + 4, (k % 2) * 4:(k % 2) * 4 + 4] += 1.5
    return x, t


def test_steady_state_training_creates_no_primitive(dnnl):
    x, t = _data(16)
    stats = []

    def record(i, when):
        stats.append(dnnl.primitive_cache_stats()['creations'])
    _train('@intel64', 'auto', x, t, iters=4, on_iter=record)
    # Iterations 0 and 1 may create (the first adopts weight layouts); the
    # next two create nothing.
    assert stats[-1] == stats[-4], stats


def test_cnn_trains_on_intel64_like_on_numpy():
    x, t = _data()
    m_ref, acc_ref = _train('@numpy', 'never', x, t, iters=25)
    m_dev, acc_dev = _train('@intel64', 'auto', x, t, iters=25)
    assert acc_ref >= 0.9 and abs(acc_dev - acc_ref) <= 0.07
    for name, p in m_dev.namedparams():
        assert intel64.is_native_array(p.array), name
        ref = dict(m_ref.namedparams())[name].array
        numpy.testing.assert_allclose(numpy.asarray(p.array), ref,
                                      rtol=1e-2, atol=2e-3)


def test_conv_relu_conv_keeps_layout_without_reorders(dnnl, rng):
    x = intel64.from_numpy(_f32(rng, (4, 32, 16, 16)))
    W1 = Variable(intel64.from_numpy(_f32(rng, (32, 32, 3, 3)) * 0.1))
    W2 = Variable(intel64.from_numpy(_f32(rng, (32, 32, 3, 3)) * 0.1))
    act_bytes = x.size * 4

    def step():
        r0 = dnnl.reorder_stats()
        y1 = F.convolution_2d(x, W1, pad=1)
        r1 = dnnl.reorder_stats()
        h = F.relu(y1)
        y2 = F.convolution_2d(h, W2, pad=1)
        r2 = dnnl.reorder_stats()
        y2.grad = numpy.zeros_like(y2.array)
        y2.backward()
        r3 = dnnl.reorder_stats()
        return y1, h, y2, r0, r1, r2, r3

    with using_config('use_ideep', 'auto'):
        step()
        y1, h, y2, r0, r1, r2, r3 = step()
    assert h.array.same_layout(y1.array)
    assert y2.array.same_layout(y1.array)
    # Forward: past the input edge (x is plain), relu and conv2 reorder
    # nothing.
    assert r2['count'] == r1['count']
    # Backward: at most weights/filter gradients and the input x are
    # reordered, never an activation gradient between the ops.
    bwd = r3['bytes'] - r2['bytes']
    assert bwd <= act_bytes + 4 * W1.array.nbytes, (bwd, act_bytes)


@pytest.mark.parametrize('call,error', [
    (lambda d: d.convolution_forward(numpy.zeros((2, 3, 5, 5), numpy.float32),
                                     numpy.zeros((4, 2, 3, 3), numpy.float32),
                                     None, [1, 1], [1, 1], [0, 0], [0, 0], 1),
     ValueError),
    (lambda d: d.convolution_forward(numpy.zeros((2, 3, 5, 5)),
                                     numpy.zeros((4, 3, 3, 3), numpy.float32),
                                     None, [1, 1], [1, 1], [0, 0], [0, 0], 1),
     TypeError),
    (lambda d: d.convolution_forward(numpy.zeros((2, 3, 2, 2), numpy.float32),
                                     numpy.zeros((4, 3, 3, 3), numpy.float32),
                                     None, [1, 1], [1, 1], [0, 0], [0, 0], 1),
     ValueError),
    (lambda d: d.convolution_forward(numpy.zeros((2, 3, 5, 5), numpy.float32),
                                     numpy.zeros((4, 3, 3, 3), numpy.float32),
                                     None, [0, 1], [1, 1], [0, 0], [0, 0], 1),
     ValueError),
    (lambda d: d.convolution_backward_data(
        numpy.zeros((2, 4, 2, 2), numpy.float32),
        numpy.zeros((4, 3, 3, 3), numpy.float32), [2, 3, 5, 5],
        [1, 1], [1, 1], [0, 0], [0, 0], 1), ValueError),
    (lambda d: d.convolution_backward_weights(
        numpy.zeros((2, 3, 5, 5), numpy.float32),
        numpy.zeros((2, 4, 2, 2), numpy.float32), [4, 3, 3, 3], True,
        [1, 1], [1, 1], [0, 0], [0, 0], 1), ValueError),
    (lambda d: d.linear_forward(numpy.zeros((2, 3), numpy.float32),
                                numpy.zeros((4, 5), numpy.float32), None),
     ValueError),
    (lambda d: d.linear_forward(numpy.zeros((2, 3), numpy.float32),
                                numpy.zeros((4, 3), numpy.float32),
                                numpy.zeros(5, numpy.float32)), ValueError),
    (lambda d: d.linear_backward_data(numpy.zeros((2, 3), numpy.float32),
                                      numpy.zeros((4, 3), numpy.float32)),
     ValueError),
    (lambda d: d.linear_backward_weights(numpy.zeros((2, 3), numpy.float32),
                                         numpy.zeros((3, 3), numpy.float32)),
     ValueError),
    (lambda d: d.relu_grad(numpy.zeros(3, numpy.float32),
                           numpy.zeros(4, numpy.float32)), ValueError),
    (lambda d: d.relu(numpy.zeros(3, numpy.int32)), TypeError),
    (lambda d: d.sum([numpy.zeros(3, numpy.float32),
                      numpy.zeros(4, numpy.float32)]), ValueError),
    (lambda d: d.sum([]), ValueError),
])
def test_bad_input_raises_naming_the_op(call, error, dnnl):
    with pytest.raises(error) as info:
        call(dnnl)
    assert any(name in str(info.value) for name in (
        'convolution', 'linear', 'relu', 'sum'))
