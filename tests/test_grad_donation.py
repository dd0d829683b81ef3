"""Donated gradients: the backward engine lets relu overwrite an output
gradient in place only when nothing but the engine refers to it."""
import importlib

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import variable
from cpuframe.backends import intel64

relu_module = importlib.import_module('cpuframe.functions.activation.relu')
bn_module = importlib.import_module(
    'cpuframe.functions.normalization.batch_normalization')

DEVICES = ['numpy', 'intel64']


@pytest.fixture
def donations(monkeypatch):
    """The overwrite_gy flag of every ReLUGrad made during the test."""
    seen = []
    init = relu_module.ReLUGrad.__init__

    def record(self, y, overwrite_gy=False):
        seen.append(overwrite_gy)
        init(self, y, overwrite_gy)

    monkeypatch.setattr(relu_module.ReLUGrad, '__init__', record)
    return seen


def _maybe_device(arrays, device):
    if device == 'intel64':
        if not intel64.is_ideep_available():
            pytest.skip('native module not available')
        dev = cpuframe.get_device('@intel64')
        return [dev.send(a) for a in arrays]
    return arrays


def _data(seed=0):
    rng = numpy.random.RandomState(seed)
    x = rng.randn(3, 4, 5, 5).astype(numpy.float32)
    W = rng.randn(4, 4, 3, 3).astype(numpy.float32)
    return x, W


def _chain(x, W):
    h = F.relu(F.convolution_2d(F.relu(x), W, pad=1))
    return F.sum(F.relu(h) * 2.0)


def _grads(device, donate=True):
    x, W = _maybe_device(list(_data()), device)
    xv, Wv = cpuframe.Variable(x), cpuframe.Variable(W)
    loss = _chain(xv, Wv)
    if not donate:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(relu_module.ReLU, 'accepts_donated_grads', False)
            loss.backward()
    else:
        loss.backward()
    return numpy.asarray(xv.grad), numpy.asarray(Wv.grad)


@pytest.mark.parametrize('device', DEVICES)
def test_fresh_gradients_are_donated_and_results_unchanged(device, donations):
    gx, gW = _grads(device)
    # every relu's output gradient is a fresh array only the engine holds
    assert donations == [True, True, True]
    gx0, gW0 = _grads(device, donate=False)
    numpy.testing.assert_array_equal(gx, gx0)
    numpy.testing.assert_array_equal(gW, gW0)


@pytest.mark.parametrize('device', DEVICES)
def test_shared_gradient_is_not_donated(device, donations):
    x, = _maybe_device([_data()[0]], device)
    xv = cpuframe.Variable(x)
    a = F.relu(xv)
    # add's backward hands the same gradient to both branches
    loss = F.sum(F.relu(a + 0) * 3.0 + F.relu(a + 0))
    loss.backward()
    # add's gradient reaches the first relu while the other branch still
    # holds it (not donated); the second relu gets it once nothing else
    # does (donated); relu(x) gets a fresh sum
    assert donations == [False, True, True]
    x_np = numpy.asarray(_data()[0])
    expect = 4.0 * (x_np > 0)
    numpy.testing.assert_allclose(numpy.asarray(xv.grad), expect)


@pytest.mark.parametrize('device', DEVICES)
def test_retained_gradients_are_not_overwritten(device, donations):
    x, W = _maybe_device(list(_data()), device)
    xv, Wv = cpuframe.Variable(x), cpuframe.Variable(W)
    r = F.relu(xv)
    c = F.convolution_2d(r, Wv, pad=1)
    h = F.relu(c)
    t = F.relu(h)
    loss = F.sum(t * 2.0)
    loss.backward(retain_grad=True)
    # every relu's output gradient is kept as the user's variable's grad
    assert donations == [False, False, False]
    numpy.testing.assert_allclose(numpy.asarray(t.grad), 2.0)
    h_np = numpy.asarray(h.array)
    numpy.testing.assert_allclose(numpy.asarray(h.grad), 2.0 * (h_np > 0))
    numpy.testing.assert_allclose(numpy.asarray(c.grad),
                                  numpy.asarray(h.grad) * (h_np > 0))


def test_gradient_held_elsewhere_is_not_donated(donations):
    kept = []

    class Keep(cpuframe.FunctionNode):
        def forward(self, inputs):
            return inputs[0] * 2,

        def backward(self, indexes, grad_outputs):
            gx = grad_outputs[0] * 2
            kept.append(gx)  # a reference outside the engine
            return gx,

    x = cpuframe.Variable(numpy.random.randn(6).astype(numpy.float32))
    y = F.relu(x)
    loss = F.sum(F.relu(Keep().apply((y,))[0]) * 1.0)
    loss.backward()
    assert donations == [True, False]
    # relu(x) did not overwrite the gradient Keep still holds
    numpy.testing.assert_array_equal(kept[0].array, 2.0 * (x.array > 0))


def test_view_of_gradient_is_not_donated(donations):
    class View(cpuframe.FunctionNode):
        def forward(self, inputs):
            return inputs[0].reshape(-1),

        def backward(self, indexes, grad_outputs):
            # a reshape view: the array does not own its buffer
            return grad_outputs[0].array.reshape(2, 3),

    x = cpuframe.Variable(numpy.random.randn(2, 3).astype(numpy.float32))
    loss = F.sum(F.relu(View().apply((F.relu(x),))[0]) * 5.0)
    loss.backward()
    # relu before View gets a view; the one after gets mul's fresh gradient
    assert donations == [True, False]


def test_double_backprop_never_donates(donations):
    x = cpuframe.Variable(numpy.random.randn(5).astype(numpy.float32))
    y = F.sum(F.relu(x * 3.0) * 2.0)
    gx, = cpuframe.grad([y], [x], enable_double_backprop=True)
    assert donations and not any(donations)
    numpy.testing.assert_allclose(gx.array, 6.0 * (x.array > 0))


def test_engine_reference_probe_is_sane():
    # a gradient the engine alone holds counts no more than the probe; one
    # more holder is seen
    v = cpuframe.Variable(numpy.zeros(3, numpy.float32), requires_grad=False)
    gys = (v,)
    n_var, n_arr = variable._ref_counts(gys, 0)
    assert n_var == variable._ENGINE_REFS[0] + 1  # `v` here holds it too
    assert n_arr == variable._ENGINE_REFS[1]
    del v
    assert variable._donated(gys) == (True,)
    arr = gys[0].array  # noqa: F841 - a second holder of the array
    assert variable._donated(gys) == (False,)


def test_engine_array_probe_is_sane():
    # the engine's arrays (no double backprop): an array only the tuple or
    # list holds is donated; a view, a second holder or a broadcast is not
    seq = [numpy.zeros(3, numpy.float32), numpy.zeros(3, numpy.float32)]
    assert variable._donated_arrays(seq) == (True, True)
    held = seq[1]
    assert variable._donated_arrays(seq) == (True, False)
    del held
    seq.append(seq[0])                       # one array twice
    assert variable._donated_arrays(seq) == (False, True, False)
    view = (numpy.zeros((2, 3), numpy.float32)[0],)
    assert variable._donated_arrays(view) == (False,)
    readonly = (numpy.broadcast_to(numpy.float32(1), (3,)),)
    assert variable._donated_arrays(readonly) == (False,)
    assert variable._donated_arrays((None,)) == (False,)


def test_native_relu_grad_overwrites_only_an_exclusive_buffer():
    if not intel64.is_ideep_available():
        pytest.skip('native module not available')
    nat = intel64.native()
    rng = numpy.random.RandomState(1)
    y = nat.relu(rng.randn(4, 6).astype(numpy.float32))
    gy_np = rng.randn(4, 6).astype(numpy.float32)
    expect = gy_np * (numpy.asarray(y) > 0)

    gy = nat.Tensor.from_numpy(gy_np) if hasattr(nat.Tensor, 'from_numpy') \
        else cpuframe.get_device('@intel64').send(gy_np.copy())
    assert nat.owns_buffer(gy)
    gx = nat.relu_grad(y, gy, overwrite_gy=True)
    assert gx is gy
    numpy.testing.assert_array_equal(numpy.asarray(gx), expect)

    # not given up: a new buffer, gy untouched
    gy2 = cpuframe.get_device('@intel64').send(gy_np.copy())
    gx2 = nat.relu_grad(y, gy2)
    assert gx2 is not gy2
    numpy.testing.assert_array_equal(numpy.asarray(gy2), gy_np)

    # NumPy memory under the Tensor: never overwritten
    gy3 = gy_np.copy()
    gx3 = nat.relu_grad(y, gy3, overwrite_gy=True)
    numpy.testing.assert_array_equal(gy3, gy_np)
    numpy.testing.assert_array_equal(numpy.asarray(gx3), expect)
    assert not nat.owns_buffer(gy3)


def test_batch_normalization_backward_overwrites_a_donated_gradient(dnnl_or_skip):
    """BN's oneDNN backward writes gx over a donated gy; results unchanged."""
    rng = numpy.random.RandomState(5)
    x = rng.randn(4, 16, 5, 5).astype(numpy.float32)
    gamma = rng.uniform(0.5, 1.5, 16).astype(numpy.float32)
    beta = rng.randn(16).astype(numpy.float32)
    calls = []
    nat = intel64.native()
    real = nat.batch_normalization_backward

    results = []
    for donate in (True, False):
        vs = [cpuframe.Variable(intel64.from_numpy(a)) for a in (x, gamma, beta)]
        with pytest.MonkeyPatch.context() as mp:
            if not donate:
                mp.setattr(bn_module.BatchNormalization,
                           'accepts_donated_grads', False)

            def spy(x_, g_, gy, ctx, overwrite_gy=False):
                out = real(x_, g_, gy, ctx, overwrite_gy=overwrite_gy)
                calls.append((overwrite_gy, out[0] is gy))
                return out

            mp.setattr(intel64, '_dnnl', _Wrap(nat, batch_normalization_backward=spy))
            # relu's gradient is a fresh Tensor in BN's layout: donated
            # ('always': arrays this small take the NumPy path under 'auto')
            with cpuframe.using_config('use_ideep', 'always'):
                loss = F.sum(F.relu(F.batch_normalization(*vs)) * 3.0)
                loss.backward()
        results.append([numpy.asarray(v.grad) for v in vs])
    assert calls == [(True, True), (False, False)]
    for a, b in zip(*results):
        numpy.testing.assert_array_equal(a, b)


class _Wrap:
    def __init__(self, real, **overrides):
        self._real = real
        self._overrides = overrides

    def __getattr__(self, name):
        return self._overrides.get(name) or getattr(self._real, name)


@pytest.fixture
def dnnl_or_skip():
    if not intel64.is_ideep_available():
        pytest.skip('native module not available')


@pytest.mark.parametrize('device', DEVICES)
def test_gradient_sum_accumulates_into_a_donated_gradient(device, monkeypatch):
    """Two branches meet: the engine sums their gradients into one of them
    when it alone holds it; the sum is the same either way."""
    basic = importlib.import_module('cpuframe.functions.math.basic_math')
    seen = []
    init = basic.MultiAdd.__init__

    def record(self, donated=None):
        seen.append(donated)
        init(self, donated)

    monkeypatch.setattr(basic.MultiAdd, '__init__', record)
    x_np = _data()[0]
    results = []
    for donate in (True, False):
        x, = _maybe_device([x_np], device)
        xv = cpuframe.Variable(x)
        h = F.relu(xv)
        with pytest.MonkeyPatch.context() as mp:
            if not donate:
                mp.setattr(variable, '_donated', lambda gs: None)
                mp.setattr(variable, '_donated_arrays', lambda gs: None)
            loss = F.sum(F.relu(h * 2.0) + F.relu(h * 3.0))
            loss.backward()
        results.append(numpy.asarray(xv.grad))
    assert seen[0] == (True, True) and seen[1] is None
    numpy.testing.assert_array_equal(results[0], results[1])
    numpy.testing.assert_allclose(results[0], 5.0 * (x_np > 0))


def test_user_held_gradient_is_not_summed_into():
    x = cpuframe.Variable(numpy.random.randn(6).astype(numpy.float32))
    a = x * 2.0
    b = x * 3.0
    loss = F.sum(a + b)
    loss.backward(retain_grad=True)
    # a.grad and b.grad (user-visible) keep their own values
    numpy.testing.assert_array_equal(a.grad, numpy.ones(6, numpy.float32))
    numpy.testing.assert_array_equal(b.grad, numpy.ones(6, numpy.float32))
    numpy.testing.assert_allclose(x.grad, numpy.full(6, 5.0, numpy.float32))



@pytest.mark.parametrize('holds', [True, False])
@pytest.mark.parametrize('device', DEVICES)
def test_function_hook_and_donation(device, holds, donations):
    # A hook that may keep the arrays it is shown (the default) stops the
    # engine from overwriting them; one that reads only shapes
    # (holds_backward_arrays = False, the roofline's profiler) does not,
    # and its backward_postprocess still gets the arrays.
    from cpuframe import function_hook
    shapes = []

    class Hook(function_hook.FunctionHook):
        holds_backward_arrays = holds

        def backward_preprocess(self, function, in_data, out_grad):
            shapes.append([None if g is None else g.shape for g in out_grad])

        def backward_postprocess(self, function, in_data, out_grad):
            assert len(out_grad) == len(function.outputs)
            assert len(in_data) == len(function.inputs)

    with Hook():
        gx, gW = _grads(device)
    assert donations == ([False] * 3 if holds else [True] * 3)
    assert len(shapes) >= 5
    gx0, gW0 = _grads(device, donate=False)
    numpy.testing.assert_array_equal(gx, gx0)
    numpy.testing.assert_array_equal(gW, gW0)
