"""Weight gradients summed where they are computed (``backward_accumulate``).

A link called at every step of an unrolled RNN (Chainer's PTB example: an
EmbedID, two L.LSTM and a Linear called 35 times) receives one weight
gradient per step. When the engine alone holds the sum so far
(``FunctionNode.donated_grad_input``), Linear and the fused L.LSTM step add
their contribution into it in the GEMM that computes it (sgemm with beta 1)
and EmbedID adds its rows into it, instead of making a dense gradient per
step and adding it afterwards. Checked here: the gradients equal the NumPy
path's and the unfused ones', the fusion really runs (the accumulator reaches
the native call), and it stays out of the way wherever the sum is not the
engine's alone (double backprop, a gradient the user holds, hooks).
"""
import numpy
import pytest

import cpuframe
from cpuframe import Variable
from cpuframe import functions as F
from cpuframe import links as L
from cpuframe.backends import intel64
from cpuframe.configuration import using_config
from cpuframe.function_hooks import TimerHook


class Recorder:
    """The native module, recording which arguments of some calls were None.

    Only that: a reference kept to an accumulator would (rightly) stop the
    engine from donating it the next time.
    """

    def __init__(self, real, names):
        self._real = real
        self._names = names
        self.calls = []

    def __getattr__(self, name):
        attr = getattr(self._real, name)
        if name in self._names:
            def wrapper(*args, **kwargs):
                self.calls.append((name, tuple(a is None for a in args),
                                   {k: v is None for k, v in kwargs.items()}))
                return attr(*args, **kwargs)
            return wrapper
        return attr

    def accumulated(self, name, position, keyword):
        """How many calls of ``name`` passed an accumulator."""
        n = 0
        for called, args_none, kwargs_none in self.calls:
            if called != name:
                continue
            none = kwargs_none.get(
                keyword, args_none[position] if len(args_none) > position else True)
            n += not none
        return n


@pytest.fixture
def native(monkeypatch):
    rec = Recorder(intel64.native(), ('linear_backward_weights', 'lstm_step_backward'))
    monkeypatch.setattr(intel64, '_dnnl', rec)
    return rec


class StepModel(cpuframe.Chain):
    """Embedding, one L.LSTM and an output layer, called once per step."""

    def __init__(self, vocab=12, units=8, out=40):
        super().__init__()
        with self.init_scope():
            self.embed = L.EmbedID(vocab, units, ignore_label=-1)
            self.lstm = L.LSTM(units, units)
            self.out = L.Linear(units, out)

    def loss(self, xs, ts):
        self.lstm.reset_state()
        loss = 0
        for x, t in zip(xs, ts):
            h = self.lstm(self.embed(x))
            loss += F.softmax_cross_entropy(self.out(h), t)
        return loss / len(xs)


def _data(steps=5, batch=16, vocab=12, out=40, seed=0):
    rng = numpy.random.RandomState(seed)
    xs = rng.randint(0, vocab, (steps, batch)).astype(numpy.int32)
    xs[1, :3] = -1  # ignored ids add nothing
    ts = rng.randint(0, out, (steps, batch)).astype(numpy.int32)
    return xs, ts


def _grads(model, data, mode, device=None, **config):
    if device:
        model.to_device(device)
    model.cleargrads()
    with using_config('use_ideep', mode):
        with cpuframe.using_config('lazy_grad_sum', config.get('lazy', False)):
            loss = model.loss(*data)
            loss.backward()
    return {n: numpy.asarray(p.grad) for n, p in model.namedparams()}


def _copy(model):
    import copy
    return copy.deepcopy(model)


def _assert_same(got, ref, rtol=2e-5):
    assert got.keys() == ref.keys()
    for name in ref:
        scale = max(float(numpy.abs(ref[name]).max()), 1e-6)
        err = float(numpy.abs(got[name] - ref[name]).max())
        assert err <= rtol * scale, (name, err, scale)


@pytest.mark.parametrize('lazy', [False, True])
def test_stepped_model_gradients_match_numpy_path(native, lazy):
    numpy.random.seed(0)
    model = StepModel()
    ref = _grads(_copy(model), _data(), 'never', lazy=lazy)
    got = _grads(model, _data(), 'always', device='@intel64', lazy=lazy)
    _assert_same(got, ref)
    # 5 steps: the first makes each weight's gradient, the others add into it
    assert native.accumulated('linear_backward_weights', 4, 'acc') == 4
    assert native.accumulated('lstm_step_backward', 9, 'gW_up_acc') == 4
    assert native.accumulated('lstm_step_backward', 11, 'gW_lat_acc') == 3


def test_embed_id_adds_rows_into_the_sum_on_numpy_path_too():
    # EmbedID's gradient: the rows of gy added at the ids, summed over steps.
    rng = numpy.random.RandomState(1)
    W = Variable(rng.standard_normal((6, 3)).astype(numpy.float32))
    ids = [numpy.array(v, numpy.int32)
           for v in ([0, 5, 5, -1], [2, 0, -1, 1], [5, 5, 5, 5])]
    coefs = [rng.standard_normal((4, 3)).astype(numpy.float32) for _ in ids]
    with using_config('use_ideep', 'never'):
        loss = sum(F.sum(F.embed_id(x, W, ignore_label=-1) * c)
                   for x, c in zip(ids, coefs))
        loss.backward()
    expected = numpy.zeros((6, 3), numpy.float32)
    for x, c in zip(ids, coefs):
        for i, v in enumerate(x):
            if v != -1:
                expected[v] += c[i]
    numpy.testing.assert_allclose(W.grad, expected, rtol=1e-6, atol=1e-6)


def test_user_held_gradient_is_not_written_over():
    # retain_grad keeps every intermediate gradient: the engine no longer
    # holds the sums alone, so nothing is accumulated in place; and a
    # gradient already on the parameter is added to, not overwritten.
    numpy.random.seed(2)
    model = StepModel()
    ref_model = _copy(model)
    model.to_intel64()
    data = _data()
    with using_config('use_ideep', 'always'):
        model.loss(*data).backward()
        # held, not copied: the second backward must not write over them
        first = {n: p.grad for n, p in model.namedparams()}
        model.loss(*data).backward(retain_grad=True)
    with using_config('use_ideep', 'never'):
        ref_model.loss(*data).backward()
    for n, p in model.namedparams():
        ref = dict(ref_model.namedparams())[n].grad
        numpy.testing.assert_allclose(numpy.asarray(p.grad), 2 * ref, rtol=2e-5,
                                      atol=2e-5 * float(numpy.abs(ref).max()))
        numpy.testing.assert_allclose(numpy.asarray(first[n]), ref, rtol=2e-5,
                                      atol=2e-5 * float(numpy.abs(ref).max()))


def test_double_backprop_through_a_reused_linear(native):
    # With enable_double_backprop the sum is recorded, never accumulated in
    # place, and the second-order gradient is that of the NumPy path.
    rng = numpy.random.RandomState(3)
    W0 = rng.standard_normal((40, 8)).astype(numpy.float32)
    xs = [rng.standard_normal((16, 8)).astype(numpy.float32) for _ in range(3)]

    def second_order(mode):
        W = Variable(W0.copy())
        if mode == 'always':
            W.to_device('@intel64')
        with using_config('use_ideep', mode):
            y = sum(F.sum(F.tanh(F.linear(x, W))) for x in xs)
            gW, = cpuframe.grad([y], [W], enable_double_backprop=True)
            F.sum(gW * gW).backward()
        return numpy.asarray(gW.array), numpy.asarray(W.grad)

    g_ref, gg_ref = second_order('never')
    g, gg = second_order('always')
    numpy.testing.assert_allclose(g, g_ref, rtol=2e-5, atol=1e-5)
    numpy.testing.assert_allclose(gg, gg_ref, rtol=2e-4, atol=1e-4)


def test_recorded_backward_never_accumulates_in_place(native):
    rng = numpy.random.RandomState(6)
    W0 = rng.standard_normal((40, 8)).astype(numpy.float32)
    xs = [rng.standard_normal((16, 8)).astype(numpy.float32) for _ in range(3)]
    results = []
    for mode in ('never', 'always'):
        W = Variable(W0.copy())
        if mode == 'always':
            W.to_device('@intel64')
        with using_config('use_ideep', mode):
            y = sum(F.sum(F.tanh(F.linear(x, W))) for x in xs)
            gW, = cpuframe.grad([y], [W], enable_double_backprop=True)
        assert gW.creator is not None  # the sum is part of the graph
        results.append(numpy.asarray(gW.array))
    assert native.accumulated('linear_backward_weights', 4, 'acc') == 0
    numpy.testing.assert_allclose(results[1], results[0], rtol=2e-5, atol=1e-5)


def test_function_hooks_see_every_gradient_node(native):
    # A hook sees the weight-gradient nodes as without the fusion: then the
    # fusion steps aside.
    numpy.random.seed(4)
    model = StepModel()
    ref = _grads(_copy(model), _data(), 'never')
    model.to_intel64()
    hook = TimerHook()
    with hook:
        got = _grads(model, _data(), 'always')
    _assert_same(got, ref)
    assert native.accumulated('linear_backward_weights', 4, 'acc') == 0
    assert 'LinearGradWeight' in {name for name, _ in hook.call_history}


def test_linear_accumulator_arguments_are_checked():
    mod = intel64.native()
    x = numpy.ones((4, 3), numpy.float32)
    gy = numpy.ones((4, 5), numpy.float32)
    acc = numpy.zeros((5, 3), numpy.float32)
    gW, _ = mod.linear_backward_weights(x, gy, False, None, acc)
    assert gW is not None
    numpy.testing.assert_array_equal(acc, numpy.full((5, 3), 4, numpy.float32))
    mod.linear_backward_weights(x, gy, False, None, acc)
    numpy.testing.assert_array_equal(acc, numpy.full((5, 3), 8, numpy.float32))
    fn = 'linear_backward_weights: expected acc'
    with pytest.raises(ValueError, match=fn + r' of shape \(5, 3\)'):
        mod.linear_backward_weights(x, gy, False, None,
                                    numpy.zeros((3, 5), numpy.float32))
    frozen = numpy.zeros((5, 3), numpy.float32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match=fn + ' to be writeable'):
        mod.linear_backward_weights(x, gy, False, None, frozen)
    with pytest.raises(TypeError, match=fn):
        mod.linear_backward_weights(x, gy, False, None,
                                    numpy.zeros((5, 3), numpy.float64))


@pytest.mark.parametrize('bad', [numpy.nan, numpy.inf, 1e30])
def test_accumulated_gradients_keep_special_values(bad):
    # NaN and inf in the sum so far and in the new contribution stay as the
    # NumPy path has them.
    rng = numpy.random.RandomState(5)
    W0 = rng.standard_normal((40, 8)).astype(numpy.float32)
    xs = [rng.standard_normal((16, 8)).astype(numpy.float32) for _ in range(3)]
    xs[1][2, 3] = bad

    def grad(mode):
        W = Variable(W0.copy())
        if mode == 'always':
            W.to_device('@intel64')
        with using_config('use_ideep', mode):
            sum(F.sum(F.linear(x, W)) for x in xs).backward()
        return numpy.asarray(W.grad)

    ref, got = grad('never'), grad('always')
    numpy.testing.assert_array_equal(numpy.isnan(got), numpy.isnan(ref))
    finite = numpy.isfinite(ref)
    numpy.testing.assert_array_equal(got[~finite], ref[~finite])
    numpy.testing.assert_allclose(got[finite], ref[finite], rtol=2e-5)


class LSTMSteps(cpuframe.Chain):
    """One L.LSTM called once per step on NumPy arrays (use_ideep 'auto')."""

    def __init__(self, units=8):
        super().__init__()
        with self.init_scope():
            self.lstm = L.LSTM(units, units)

    def loss(self, xs, cs):
        self.lstm.reset_state()
        return sum(F.sum(self.lstm(x) * c) for x, c in zip(xs, cs))


@pytest.fixture
def every_numpy_sum(monkeypatch):
    """The native module, and AUTO_MIN['lstm_numpy_accumulate'] at 0: every
    NumPy weight sum may be added into."""
    if not intel64.is_ideep_available():
        pytest.skip('no native module')
    from cpuframe.backends.intel64 import _routing
    monkeypatch.setitem(_routing.AUTO_MIN, 'lstm_numpy_accumulate', 0)


def _lstm_data(steps, batch=3, units=8, seed=3):
    rng = numpy.random.RandomState(seed)
    xs = rng.standard_normal((steps, batch, units)).astype(numpy.float32)
    cs = rng.standard_normal((steps, batch, units)).astype(numpy.float32)
    return list(xs), list(cs)


@pytest.mark.parametrize('steps', [2, 3, 6])
def test_lstm_on_numpy_arrays_adds_into_numpy_sums(native, steps,
                                                   every_numpy_sum):
    """The fused step on NumPy arrays ('auto', the weights NumPy arrays),
    weights from AUTO_MIN['lstm_numpy_accumulate'] elements (here all):
    from the third step back the weight gradients are added into the NumPy
    sum the engine holds alone (the second step's sum is the first one the
    engine owns); the gradients equal the NumPy path's and the device's."""
    numpy.random.seed(4)
    model = LSTMSteps()
    data = _lstm_data(steps)
    ref = _grads(_copy(model), data, 'never')
    device = _grads(_copy(model), data, 'always', '@intel64')
    native.calls.clear()
    got = _grads(model, data, 'auto')
    _assert_same(got, ref)
    _assert_same(got, device)
    assert type(model.lstm.upward.W.grad) is numpy.ndarray
    assert native.accumulated('lstm_step_backward', 9, 'gW_up_acc') == \
        max(steps - 2, 0)
    assert native.accumulated('lstm_step_backward', 11, 'gW_lat_acc') == \
        max(steps - 3, 0)


def test_lstm_numpy_sum_a_user_holds_is_not_written_over(every_numpy_sum):
    """retain_grad on NumPy arrays: the sums are the user's too, nothing is
    added in place, and a gradient already on the parameter is added to."""
    numpy.random.seed(5)
    model = LSTMSteps()
    ref_model = _copy(model)
    data = _lstm_data(6)
    model.cleargrads()  # (a new parameter's gradient is NaN, as Chainer's)
    with using_config('use_ideep', 'auto'):
        model.loss(*data).backward()
        first = {n: p.grad for n, p in model.namedparams()}
        kept = {n: g.copy() for n, g in first.items()}
        model.loss(*data).backward(retain_grad=True)
    ref = _grads(ref_model, data, 'never')
    for n, p in model.namedparams():
        numpy.testing.assert_array_equal(first[n], kept[n])
        scale = float(numpy.abs(ref[n]).max())
        numpy.testing.assert_allclose(p.grad, 2 * ref[n], rtol=2e-5,
                                      atol=2e-5 * scale)


def test_numpy_accumulators_must_be_writeable_contiguous_float32():
    from cpuframe.functions.rnn.lstm import _numpy_accumulator
    a = numpy.zeros((4, 8), numpy.float32)
    assert _numpy_accumulator(a)
    assert not _numpy_accumulator(a.T)
    assert not _numpy_accumulator(a.astype(numpy.float64))
    ro = a.copy()
    ro.flags.writeable = False
    assert not _numpy_accumulator(ro)
    assert not _numpy_accumulator(intel64.from_numpy(a)) \
        if intel64.is_ideep_available() else True
    raw = numpy.zeros(4 * 8 * 4 + 1, numpy.uint8)[1:].view(numpy.float32)
    assert not raw.flags.aligned and not _numpy_accumulator(raw)


def test_lstm_numpy_weights_below_the_threshold_are_summed_by_the_engine(
        native, monkeypatch):
    """Below AUTO_MIN['lstm_numpy_accumulate'] elements a weight's sums are
    the engine's additions (no accumulator handed to the kernel); at it,
    they are added in place."""
    if not intel64.is_ideep_available():
        pytest.skip('no native module')
    from cpuframe.backends.intel64 import _routing
    model = LSTMSteps()   # (W_up: 32 x 8 = 256 elements)
    data = _lstm_data(5)
    for threshold, expected in ((257, 0), (256, 3)):
        monkeypatch.setitem(_routing.AUTO_MIN, 'lstm_numpy_accumulate',
                            threshold)
        native.calls.clear()
        _grads(model, data, 'auto')
        assert native.accumulated('lstm_step_backward', 9, 'gW_up_acc') == \
            expected
