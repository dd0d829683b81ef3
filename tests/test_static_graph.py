"""@static_graph / @static_code: Chainer's static-subgraph decorators run the
decorated chain define-by-run and give the same values and gradients as the
undecorated chain, across iterations, in training and test mode."""
import numpy
import pytest
from testhelpers.hooks import SeenLabels
from testhelpers.threads import run_in_threads

import cpuframe
import cpuframe.functions as F
import cpuframe.links as L
from cpuframe.graph_optimizations.static_graph import static_graph
from cpuframe.graph_optimizations.static_graph_utilities import (
    static_code,
    static_forward_optimizations,
)


class Plain(cpuframe.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(4, 8)
            self.bn = L.BatchNormalization(8)
            self.l2 = L.Linear(8, 3)

    def forward(self, x):
        return self.l2(F.dropout(F.relu(self.bn(self.l1(x))), 0.3))


class Static(Plain):
    calls = 0

    @static_code
    def count(self):
        type(self).calls += 1

    @static_graph
    def forward(self, x):
        self.count()
        return super().forward(x)


class StaticWithOptions(Plain):
    @static_graph(verbosity_level=1, minimize_cache_size=False)
    def forward(self, x):
        return super().forward(x)


@pytest.mark.parametrize('cls', [Static, StaticWithOptions])
@pytest.mark.parametrize('train', [True, False])
def test_same_values_and_gradients_every_iteration(cls, train):
    plain, static = Plain(), cls()
    static.copyparams(plain)
    rng = numpy.random.default_rng(0)
    Static.calls = 0
    for it in range(3):
        x = rng.standard_normal((5, 4)).astype(numpy.float32)
        outs = []
        for model in (plain, static):
            model.cleargrads()
            numpy.random.seed(it)    # the same dropout mask
            with cpuframe.using_config('train', train):
                y = model(x)
            F.sum(y * y).backward()
            outs.append((y.array.copy(), model.l1.W.grad.copy()))
        numpy.testing.assert_array_equal(outs[0][0], outs[1][0])
        numpy.testing.assert_array_equal(outs[0][1], outs[1][1])
    assert isinstance(static.schedule_manager, object)
    static.schedule_manager.end_forward()   # Chainer's call for forward-only runs
    if cls is Static:
        assert Static.calls == 3               # @static_code runs every iteration


def test_top_level_names():
    assert cpuframe.static_graph is static_graph
    assert cpuframe.static_code is static_code
    assert cpuframe.graph_optimizations.static_code is static_code
    assert static_forward_optimizations(None, ()) is None


def test_bad_arguments_are_named():
    with pytest.raises(TypeError,
                       match='static_graph: unexpected keyword argument.*fast'):
        static_graph(fast=True)
    with pytest.raises(TypeError, match='static_graph: expected the method'):
        static_graph(3)
    with pytest.raises(TypeError, match='static_code: expected no keyword'):
        static_code(x=1)


# -- record and replay ---------------------------------------------------------
# A decorated chain records its ops on the first two calls per input
# signature and replays them from the third; everything below checks the
# replay against the same chain undecorated, bit for bit.
from cpuframe import function_hook  # noqa: E402
from cpuframe.backends import intel64  # noqa: E402

DEVICES = ['numpy', pytest.param('intel64', marks=pytest.mark.skipif(
    not intel64.is_ideep_available(), reason='native module unavailable'))]


class ConvNet(cpuframe.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.c1 = L.Convolution2D(2, 4, 3, pad=1)
            self.bn = L.BatchNormalization(4)
            self.l1 = L.Linear(4 * 4 * 4, 5)
        self.python_calls = 0

    def forward(self, x):
        self.python_calls += 1
        h = F.max_pooling_2d(F.relu(self.bn(self.c1(x))), 2)
        h = F.dropout(h, 0.25)
        return self.l1(h) * 0.5 + F.tanh(self.l1(h))


class StaticConvNet(ConvNet):
    @static_graph
    def forward(self, x):
        return super().forward(x)


class Unrolled(cpuframe.Chain):
    """An LSTM unrolled inside the decorated method (weights used at every
    step: their gradients accumulate)."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.embed = L.Linear(3, 6)
            self.lstm = L.LSTM(6, 5)
            self.out = L.Linear(5, 2)
        self.python_calls = 0

    def forward(self, xs):
        self.python_calls += 1
        self.lstm.reset_state()
        ys = []
        for x in xs:
            ys.append(self.out(self.lstm(F.tanh(self.embed(x)))))
        return F.stack(ys), self.lstm.c


class StaticUnrolled(Unrolled):
    @static_graph
    def forward(self, xs):
        return super().forward(xs)


class MLP(cpuframe.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(4, 16)
            self.l2 = L.Linear(16, 3)
        self.python_calls = 0

    def forward(self, x):
        self.python_calls += 1
        return self.l2(F.relu(self.l1(x)))


class StaticMLP(MLP):
    @static_graph
    def forward(self, x):
        return super().forward(x)


def _pair(plain_cls, static_cls, device='numpy'):
    plain, static = plain_cls(), static_cls()
    static.copyparams(plain)
    if device == 'intel64':
        plain.to_device('@intel64')
        static.to_device('@intel64')
    return plain, static


def _arrays(x):
    return numpy.asarray(x.array if isinstance(x, cpuframe.Variable) else x)


def _train_both(plain, static, make_inputs, loss_of, iterations, optimizer=None):
    opts = [cpuframe.optimizers.Adam().setup(m) if optimizer else None
            for m in (plain, static)]
    for it in range(iterations):
        inputs = make_inputs(it)
        seen = []
        for model, opt in zip((plain, static), opts):
            model.cleargrads()
            numpy.random.seed(it)
            loss = loss_of(model(inputs))
            loss.backward()
            seen.append([_arrays(loss)] +
                        [_arrays(p.grad) for _, p in sorted(model.namedparams())] +
                        [numpy.asarray(getattr(link, name))
                         for link in model.links() for name in sorted(link._persistent)
                         if getattr(link, name) is not None and
                         not numpy.isscalar(getattr(link, name))])
            if opt is not None:
                opt.update()
        for a, b in zip(*seen):
            numpy.testing.assert_array_equal(a, b, err_msg='iteration {}'.format(it))


@pytest.mark.parametrize('device', DEVICES)
@pytest.mark.parametrize('train', [True, False])
def test_convnet_replay_equals_define_by_run(device, train):
    plain, static = _pair(ConvNet, StaticConvNet, device)
    rng = numpy.random.default_rng(1)
    dev = cpuframe.get_device('@intel64' if device == 'intel64' else '@numpy')

    def inputs(it):
        return dev.send(rng.standard_normal((3, 2, 8, 8)).astype(numpy.float32))

    with cpuframe.using_config('train', train):
        _train_both(plain, static, inputs, lambda y: F.sum(y * y), 5, optimizer=True)
    # two recorded calls, then replays: the chain's Python ran twice
    assert static.python_calls == 2 and plain.python_calls == 5
    assert 'compute' in _kinds(_schedules(static)[0])
    assert list(static.schedule_manager.schedules.values()) == ['replayed']


class RoutedNet(cpuframe.Chain):
    """Ops that 'auto' routes to oneDNN on NumPy arrays (the convolution)
    beside ops it keeps on NumPy (the small relu, pooling and linear)."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.c1 = L.Convolution2D(8, 16, 3, pad=1)
            self.l1 = L.Linear(16 * 8 * 8, 4)

    def forward(self, x):
        return self.l1(F.max_pooling_2d(F.relu(self.c1(x)), 2))


class StaticRoutedNet(RoutedNet):
    @static_graph
    def forward(self, x):
        return super().forward(x)


@pytest.mark.parametrize('mode', ['never', 'auto', 'always'])
@pytest.mark.parametrize('values', ['finite', 'nan_inf_huge'])
def test_a_replay_takes_the_routes_define_by_run_takes(mode, values):
    # a replayed op whose route the signature fixes runs its NumPy forward
    # directly (_Schedule._direct); every op still takes define-by-run's
    # route, told to the route watch as apply tells it, bit for bit
    from cpuframe import function_node
    if mode != 'never' and not intel64.is_ideep_available():
        pytest.skip('native module unavailable')
    plain, static = _pair(RoutedNet, StaticRoutedNet)
    rng = numpy.random.default_rng(3)
    x = rng.standard_normal((4, 8, 16, 16)).astype(numpy.float32)
    if values == 'nan_inf_huge':
        x[0, 0, 0, :3] = [numpy.nan, numpy.inf, 3e38]
    seen = []
    function_node._route_watch[0] = lambda node, route: seen.append(
        (type(node).__name__, route))
    try:
        with cpuframe.using_config('use_ideep', mode):
            for _ in range(2):
                static(x)       # the two recorded calls
            runs = []
            for model in (plain, static):
                del seen[:]
                model.cleargrads()
                y = model(x)
                F.sum(y).backward()
                runs.append((list(seen), [_arrays(y)] + [
                    _arrays(p.grad) for _, p in sorted(model.namedparams())]))
    finally:
        function_node._route_watch[0] = None
    assert list(static.schedule_manager.schedules.values()) == ['replayed']
    (routes_p, arrays_p), (routes_s, arrays_s) = runs
    assert routes_s == routes_p
    for a, b in zip(arrays_p, arrays_s):
        numpy.testing.assert_array_equal(a, b)
    taken = {route for _, route in routes_p}
    if mode == 'auto':
        # both kinds of op are in the step (the test is not vacuous)
        assert taken == {True, False}, routes_p
    if mode == 'never':
        assert taken == {False}


@pytest.mark.parametrize('device', DEVICES)
def test_unrolled_lstm_replay_equals_define_by_run(device):
    plain, static = _pair(Unrolled, StaticUnrolled, device)
    rng = numpy.random.default_rng(2)

    def inputs(it):
        return [rng.standard_normal((2, 3)).astype(numpy.float32) for _ in range(4)]

    _train_both(plain, static, inputs,
                lambda out: F.sum(out[0] * out[0]) + F.sum(out[1]), 6, optimizer=True)
    assert static.python_calls == 2
    # The weights' gradients: on the device accumulated through
    # backward_accumulate (one instruction each, the sums so far handed
    # over as the walk does); on NumPy arrays, where the nodes would only
    # add to them, summed as any node's gradients.
    programs = [p for p in _schedules(static)[0].programs.values() if p]
    handed = [ins for p in programs for ins in p.instrs
              if ins[0] == 'acc' and ins[5] is not None]
    assert bool(handed) == (device == 'intel64')
    assert 'sum' in _kinds(_schedules(static)[0])


class LSTMSteps(cpuframe.Chain):
    """Three steps of one L.LSTM (its fused step under 'auto')."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.lstm = L.LSTM(4, 6)
        self.python_calls = 0

    def forward(self, xs):
        self.python_calls += 1
        self.lstm.reset_state()
        for x in xs[:-1]:
            self.lstm(x)
        return self.lstm(xs[-1])


class StaticLSTMSteps(LSTMSteps):
    @static_graph
    def forward(self, xs):
        return super().forward(xs)


@pytest.mark.skipif(not intel64.is_ideep_available(),
                    reason='the fused step needs the native module')
def test_fused_lstm_steps_replay_without_linking(monkeypatch):
    # L.LSTM's fused step on NumPy arrays: its backward is one gradient
    # computation (LSTMStepGrad, which reads of its forward node only what
    # the forward kept), the weights' sums are sums, the missing gradient
    # of the last c a zero of the recorded shape: the program reads no
    # node, so replays do not link the graph - bit for bit define-by-run,
    # NaN, infinities and huge values included.
    from cpuframe.functions.rnn import lstm as lstm_module
    steps = []
    real = lstm_module.LSTMStep.forward_intel64
    monkeypatch.setattr(lstm_module.LSTMStep, 'forward_intel64',
                        lambda self, inputs: steps.append(1) or real(self, inputs))
    plain, static = _pair(LSTMSteps, StaticLSTMSteps)
    rng = numpy.random.default_rng(5)

    def inputs(it):
        xs = [rng.standard_normal((3, 4)).astype(numpy.float32) for _ in range(3)]
        if it == 6:
            xs[1][0, :3] = [numpy.nan, numpy.inf, -numpy.inf]
            xs[2][1, 0] = 3e38
        return xs

    def loss(h):
        return F.sum(h * h)

    with numpy.errstate(all='ignore'), cpuframe.using_config('use_ideep', 'auto'):
        _train_both(plain, static, lambda it: inputs(it), loss, 8,
                    optimizer=True)
    assert static.python_calls == 2 and len(steps) == 2 * 3 * 8
    schedule, = _schedules(static)
    assert schedule.lazy
    assert _kinds(schedule) == {'compute', 'sum', 'zero'}


def test_mixed_bf16_replay_equals_define_by_run():
    plain, static = _pair(MLP, StaticMLP)
    rng = numpy.random.default_rng(3)
    with cpuframe.using_config('dtype', cpuframe.mixed_bf16):
        _train_both(plain, static,
                    lambda it: rng.standard_normal((5, 4)).astype(numpy.float32),
                    lambda y: F.sum(y * y), 4, optimizer=True)
    assert static.python_calls == 2


def test_signatures_record_their_own_schedules():
    plain, static = _pair(MLP, StaticMLP)
    for batch in (2, 3, 2, 3, 2, 3):
        x = numpy.ones((batch, 4), numpy.float32) * batch
        numpy.testing.assert_array_equal(static(x).array, plain(x).array)
    assert static.python_calls == 4
    assert list(static.schedule_manager.schedules.values()) == ['replayed'] * 2
    with cpuframe.using_config('train', False):
        for _ in range(3):
            static(x)
    assert static.python_calls == 6


def test_no_backprop_mode_replays_without_graph():
    plain, static = _pair(MLP, StaticMLP)
    x = numpy.ones((2, 4), numpy.float32)
    with cpuframe.no_backprop_mode():
        for _ in range(3):
            y = static(x)
    with cpuframe.no_backprop_mode():
        expect = plain(x)
    assert y.creator is None and static.python_calls == 2
    assert y.requires_grad == expect.requires_grad
    numpy.testing.assert_array_equal(y.array, expect.array)


def test_two_calls_in_one_step_and_variable_inputs():
    plain, static = _pair(MLP, StaticMLP)
    for it in range(4):
        x1 = cpuframe.Variable(numpy.full((2, 4), it, numpy.float32))
        grads = []
        for model in (plain, static):
            model.cleargrads()
            xv = cpuframe.Variable(x1.array.copy())
            loss = F.sum(model(xv) * model(x1.array + 1))
            loss.backward()
            grads.append((model.l1.W.grad.copy(), xv.grad.copy()))
        numpy.testing.assert_array_equal(grads[0][0], grads[1][0])
        numpy.testing.assert_array_equal(grads[0][1], grads[1][1])


def test_double_backprop_through_a_replay():
    plain, static = _pair(MLP, StaticMLP)
    for _ in range(3):
        static(numpy.zeros((2, 4), numpy.float32))
    results = []
    for model in (plain, static):
        model.cleargrads()
        x = cpuframe.Variable(numpy.linspace(-1, 1, 8, dtype=numpy.float32)
                              .reshape(2, 4))
        y = model(x)
        gx, = cpuframe.grad([F.sum(F.tanh(y))], [x], enable_double_backprop=True)
        F.sum(gx * gx).backward()
        results.append((gx.array.copy(), model.l1.W.grad.copy()))
    assert static.python_calls == 3
    for a, b in zip(*results):
        numpy.testing.assert_array_equal(a, b)


def test_static_code_runs_every_call_with_this_calls_values():
    seen = []

    class Chain(MLP):
        @static_code
        def log_input(self, x):
            seen.append(float(x.array.sum()))

        @static_graph
        def forward(self, x):
            self.log_input(x)
            return super().forward(x)

    chain = Chain()
    for k in range(4):
        chain(cpuframe.Variable(numpy.full((2, 4), k, numpy.float32)))
    assert seen == [0.0, 8.0, 16.0, 24.0]
    assert chain.python_calls == 2


class Branchy(MLP):
    @static_graph
    def forward(self, x):
        h = self.l1(x)
        if float(x.sum()) > 0:     # data-dependent: not a static graph
            h = F.relu(h)
        return self.l2(h)


class Computed(MLP):
    @static_graph
    def forward(self, x):
        # an array computed outside the ops is frozen in a replay
        return self.l2(F.relu(self.l1(x))) + x[:, :3] * 2


class Reference(MLP):
    def forward(self, x):
        h = self.l1(x)
        if float(x.sum()) > 0:
            h = F.relu(h)
        return self.l2(h)


@pytest.mark.parametrize('cls', [Branchy, Computed])
def test_a_graph_that_depends_on_the_data_runs_define_by_run(cls):
    chain, plain = cls(), MLP()
    plain.copyparams(chain)
    signs = [1, -1, 1, -1, 1]
    with pytest.warns(RuntimeWarning, match='does not define the same graph'):
        for s in signs[:2]:
            chain(numpy.full((2, 4), s, numpy.float32))
    for s in signs:
        x = numpy.full((2, 4), s, numpy.float32)
        if cls is Branchy:
            expect = Reference.forward(plain, x).array
        else:
            expect = (MLP.forward(plain, x) + x[:, :3] * 2).array
        numpy.testing.assert_array_equal(chain(x).array, expect)
    assert list(chain.schedule_manager.schedules.values()) == ['define-by-run']


def test_parameters_replaced_or_reshaped_are_followed():
    plain, static = _pair(MLP, StaticMLP)
    x = numpy.ones((2, 4), numpy.float32)
    for _ in range(3):
        static(x)
    for model in (plain, static):   # a new array (not in place)
        model.l1.W.array = model.l1.W.array * 2
    numpy.testing.assert_array_equal(static(x).array, plain(x).array)
    assert static.python_calls == 2
    for model in (plain, static):   # another shape: recorded again
        model.l1 = L.Linear(4, 16)
    static.l1.copyparams(plain.l1)
    for model in (plain, static):
        model.l2.W.array = numpy.ones((3, 16), numpy.float32)
    numpy.testing.assert_array_equal(static(x).array, plain(x).array)


def test_replaced_persistents_and_link_hooks_record_again():
    plain, static = _pair(ConvNet, StaticConvNet)
    x = numpy.ones((2, 2, 8, 8), numpy.float32)
    for _ in range(3):
        static(x)
    calls = static.python_calls
    static.bn.avg_mean = static.bn.avg_mean.copy()
    static(x)
    assert static.python_calls == calls + 1
    static.c1.add_hook(cpuframe.link_hooks.TimerHook())
    static(x)
    assert static.python_calls == calls + 2


def test_hooks_debug_and_switches_run_define_by_run():
    plain, static = _pair(MLP, StaticMLP)
    x = numpy.ones((2, 4), numpy.float32)
    for _ in range(3):
        static(x)
    assert static.python_calls == 2

    class Count(function_hook.FunctionHook):
        name = 'Count'
        n = 0

        def forward_preprocess(self, function, in_data):
            self.n += 1

    with Count() as hook:
        static(x)
    assert hook.n == 3 and static.python_calls == 3   # linear, relu, linear
    with cpuframe.using_config('debug', True):
        static(x)
    assert static.python_calls == 4
    with cpuframe.using_config('use_static_graph', False):
        static(x)
    assert static.python_calls == 5
    static(x)
    assert static.python_calls == 5


def test_force_test_define_by_run():
    class Chain(MLP):
        @static_graph(force_test_define_by_run=True)
        def forward(self, x):
            return super().forward(x)

    chain = Chain()
    x = numpy.ones((2, 4), numpy.float32)
    with cpuframe.using_config('train', False):
        for _ in range(3):
            chain(x)
    assert chain.python_calls == 3
    for _ in range(3):
        chain(x)
    assert chain.python_calls == 5


def test_outputs_and_arguments_of_several_kinds():
    class Chain(MLP):
        @static_graph
        def forward(self, pair, scale=1.0):
            self.python_calls += 1
            a, b = pair
            h = self.l1(a) * scale + self.l1(b)
            return {'y': self.l2(h), 'h': (h, a)}

    chain = Chain()
    a = cpuframe.Variable(numpy.ones((2, 4), numpy.float32))
    b = numpy.full((2, 4), 2, numpy.float32)
    first = chain((a, b), scale=3.0)
    for _ in range(3):
        out = chain((a, b), scale=3.0)
    assert out['h'][1] is a
    numpy.testing.assert_array_equal(out['y'].array, first['y'].array)
    numpy.testing.assert_array_equal(out['h'][0].array, first['h'][0].array)
    assert chain.python_calls == 2
    chain((a, b), scale=2.0)      # another constant: another signature
    assert chain.python_calls == 3
    with cpuframe.no_backprop_mode():
        for _ in range(3):
            quiet = chain((a, b), scale=3.0)
    assert quiet['h'][1] is a and chain.python_calls == 5


def test_replays_from_several_threads():
    plain, static = _pair(MLP, StaticMLP)
    x = numpy.arange(8, dtype=numpy.float32).reshape(2, 4)
    for _ in range(3):
        static(x)
    expect = plain(x).array

    def work():
        for _ in range(50):
            y = static(x)
            F.sum(y).backward()
            numpy.testing.assert_array_equal(y.array, expect)
    assert not run_in_threads(work, 3)  # (a hung replay fails it)
    assert static.python_calls == 2


# -- the replayed ops as one node of the graph ---------------------------------
def _replayed(static, x, n=3):
    for _ in range(n):
        static(x)
    return static


def _grads_of(model, run):
    model.cleargrads()
    run(model)
    return [numpy.asarray(p.grad).copy() for _, p in sorted(model.namedparams())]


def test_replayed_output_is_made_by_one_schedule_node():
    plain, static = _pair(MLP, StaticMLP)
    x = numpy.ones((2, 4), numpy.float32)
    y = _replayed(static, x)(x)
    assert y.creator.label == 'StaticScheduleFunction'
    assert {id(n) for n in y.creator.inputs} == {
        id(p.node) for p in static.params()}


@pytest.mark.parametrize('device', DEVICES)
def test_backward_with_hooks_lazy_sums_and_leaf_listeners(device):
    plain, static = _pair(Unrolled, StaticUnrolled, device)
    dev = cpuframe.get_device('@intel64' if device == 'intel64' else '@numpy')
    rng = numpy.random.default_rng(5)
    xs = [dev.send(rng.standard_normal((2, 3)).astype(numpy.float32))
          for _ in range(3)]
    _replayed(static, xs)

    def loss(model):
        out = model(xs)
        return F.sum(out[0] * out[0]) + F.sum(out[1])

    expect = _grads_of(plain, lambda m: loss(m).backward())

    def with_hook(model):
        y = loss(model)          # replayed: no hook during forward
        with SeenLabels() as hook:
            y.backward()
        assert 'LSTM' in ''.join(hook.labels) or 'Linear' in ''.join(hook.labels)
    def lazy(model):
        with cpuframe.using_config('lazy_grad_sum', True):
            loss(model).backward()
    final = []

    def listened(model):
        with cpuframe.variable.final_leaf_gradients(
                lambda v: final.append(numpy.asarray(v.grad).copy())):
            loss(model).backward()
    for run in (with_hook, lazy, listened,
                lambda m: cpuframe.backward([loss(m)], [numpy.ones(())
                                                        .astype(numpy.float32)])):
        got = _grads_of(static, run)
        for a, b in zip(expect, got):
            numpy.testing.assert_array_equal(a, b)
    assert len(final) == len(expect)
    assert static.python_calls == 2


def test_grad_of_a_chain_argument_and_unused_outputs():
    class Two(MLP):
        @static_graph
        def forward(self, x):
            self.python_calls += 1
            h = self.l1(x)
            return self.l2(F.relu(h)), F.tanh(h)

    class PlainTwo(MLP):
        def forward(self, x):
            h = self.l1(x)
            return self.l2(F.relu(h)), F.tanh(h)

    static, plain = Two(), PlainTwo()
    plain.copyparams(static)
    xa = numpy.linspace(-1, 1, 8, dtype=numpy.float32).reshape(2, 4)
    for _ in range(2):
        static(cpuframe.Variable(xa))
    got = []
    for model in (plain, static):
        x = cpuframe.Variable(xa.copy())
        y, _ = model(x)          # the second output gets no gradient
        gx, = cpuframe.grad([F.sum(y * y)], [x])
        got.append(gx.array)
    numpy.testing.assert_array_equal(got[0], got[1])
    assert static.python_calls == 2


@pytest.mark.parametrize('how', ['copy', 'deepcopy', 'link_copy', 'pickle'])
def test_a_copied_chain_records_its_own_schedule(how):
    import copy
    import pickle
    plain, static = _pair(MLP, StaticMLP)
    x = numpy.ones((2, 4), numpy.float32)
    _replayed(static, x)
    if how == 'copy':
        other = copy.copy(static)
    elif how == 'deepcopy':
        other = copy.deepcopy(static)
    elif how == 'link_copy':
        other = static.copy(mode='copy')
    else:
        other = pickle.loads(pickle.dumps(static))
    if how != 'copy':                  # (copy.copy shares the parameters)
        for p in other.params():
            p.array[...] *= 2          # its own values now
    reference = MLP()
    reference.copyparams(other)
    for _ in range(3):
        numpy.testing.assert_array_equal(other(x).array, reference(x).array)
    numpy.testing.assert_array_equal(static(x).array, plain(x).array)
    assert other.schedule_manager is not static.schedule_manager


def test_reports_inside_a_static_chain_carry_each_calls_values():
    # A chain that reports its own loss (as Chainer models often do): the
    # report is a step of the schedule, so a replay reports that call's loss.
    class Reporting(MLP):
        @static_graph
        def forward(self, x, t):
            loss = F.mean_squared_error(super().forward(x), t)
            cpuframe.report({'loss': loss, 'const': 1.5}, self)
            return loss

    chain, plain = Reporting(), MLP()
    plain.copyparams(chain)
    reporter = cpuframe.Reporter()
    reporter.add_observer('main', chain)
    rng = numpy.random.default_rng(4)
    for _ in range(4):
        x = rng.standard_normal((3, 4)).astype(numpy.float32)
        t = rng.standard_normal((3, 3)).astype(numpy.float32)
        observation = {}
        with reporter.scope(observation):
            loss = chain(x, t)
        expect = F.mean_squared_error(plain(x), t).array
        numpy.testing.assert_array_equal(loss.array, expect)
        numpy.testing.assert_array_equal(observation['main/loss'].array, expect)
        assert observation['main/const'] == 1.5
    assert chain.python_calls == 2


def test_configuration_changed_inside_the_method():
    # no_backprop_mode around part of the method: those ops' outputs have
    # no creator in the replay as in define-by-run (no gradient through
    # them); another train/dtype setting inside: not replayed.
    class Part(MLP):
        def forward(self, x):
            h = self.l1(x)
            with cpuframe.no_backprop_mode():
                target = self.l2(F.relu(h))
            return self.l2(F.tanh(h)) - target

    class StaticPart(Part):
        @static_graph
        def forward(self, x):
            self.python_calls += 1
            return super().forward(x)

    plain, static = _pair(Part, StaticPart)
    rng = numpy.random.default_rng(6)
    _train_both(plain, static,
                lambda it: rng.standard_normal((3, 4)).astype(numpy.float32),
                lambda y: F.sum(y * y), 4)
    assert static.python_calls == 2

    class TestInside(MLP):
        @static_graph
        def forward(self, x):
            self.python_calls += 1
            with cpuframe.using_config('train', False):
                return super().forward(x)

    chain = TestInside()
    for _ in range(4):
        chain(numpy.ones((2, 4), numpy.float32))
    assert chain.python_calls == 8        # (MLP.forward counts too)


def test_a_gradient_penalty_computed_inside_the_method():
    # chainer.grad with double backprop inside the decorated method (a
    # WGAN-GP style penalty): its gradient ops are recorded linked to the
    # values they differentiate, so the replayed loss has define-by-run's
    # second-order parameter gradients.
    class Penalized(MLP):
        def forward(self, x):
            y = self.l2(F.tanh(self.l1(x)))
            gx, = cpuframe.grad([F.sum(y * y)], [x], enable_double_backprop=True)
            return F.sum(y) + F.sum(gx * gx)

    class StaticPenalized(Penalized):
        @static_graph
        def forward(self, x):
            self.python_calls += 1
            return super().forward(x)

    plain, static = _pair(Penalized, StaticPenalized)
    rng = numpy.random.default_rng(8)
    _train_both(plain, static,
                lambda it: cpuframe.Variable(
                    rng.standard_normal((3, 4)).astype(numpy.float32)),
                lambda loss: loss, 4)
    assert static.python_calls == 2


def test_inputs_of_a_new_shape_every_call_stop_being_recorded():
    from cpuframe.graph_optimizations import static_graph as module
    plain, static = _pair(MLP, StaticMLP)
    for n in range(1, 3 * module._GIVE_UP):
        x = numpy.full((n, 4), 0.5, numpy.float32)
        numpy.testing.assert_array_equal(static(x).array, plain(x).array)
    recorded = len(static.schedule_manager.schedules)
    assert recorded == module._GIVE_UP
    # a shape seen before is recorded a second time, then replays again
    x = numpy.full((1, 4), 0.5, numpy.float32)
    calls = static.python_calls
    for _ in range(3):
        numpy.testing.assert_array_equal(static(x).array, plain(x).array)
    assert static.python_calls == calls + 1
    assert static.schedule_manager._new_in_a_row == 0


def test_removed_members_record_again():
    class Seq(cpuframe.ChainList):
        @static_graph
        def forward(self, x):
            for link in self:
                x = link(x)
            return x

    chain = Seq(L.Linear(4, 3), L.Linear(3, 2))
    x = numpy.ones((2, 4), numpy.float32)
    for _ in range(3):
        chain(x)
    del chain._children[1]               # (what removing a child does)
    y = chain(x)
    assert y.shape == (2, 3)
    numpy.testing.assert_array_equal(y.array, chain[0](x).array)


def test_a_detached_output_stays_detached():
    class Detach(MLP):
        @static_graph
        def forward(self, x):
            h = self.l1(x)
            return self.l2(h), cpuframe.Variable(h.array)   # a new leaf

    chain = Detach()
    x = numpy.ones((2, 4), numpy.float32)
    for _ in range(3):
        y, leaf = chain(x)
    assert leaf.creator is None and y.creator is not None
    chain.cleargrads()
    F.sum(leaf).backward()
    assert chain.l1.W.grad is None     # nothing flows from the detached copy


# -- the array backward as a program -------------------------------------------
class Activations(cpuframe.Chain):
    """Only ops whose backward a program computes directly."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(4, 16)
            self.l2 = L.Linear(16, 16)
            self.l3 = L.Linear(16, 3)
        self.python_calls = 0

    def forward(self, x):
        self.python_calls += 1
        return F.tanh(self.l3(F.sigmoid(self.l2(F.relu(self.l1(x))))))


class StaticActivations(Activations):
    @static_graph
    def forward(self, x):
        return super().forward(x)


class Tripled(cpuframe.function_node.FunctionNode):
    """Claims a traceable backward, but computes it with NumPy itself."""

    _static_backward = True

    def forward(self, inputs):
        return inputs[0] * 3,

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] * 3,

    def backward_arrays(self, indexes, grad_outputs):
        return grad_outputs[0] * 3,


class WithTripled(Activations):
    def forward(self, x):
        return Tripled().apply((super().forward(x),))[0]


class StaticWithTripled(WithTripled):
    @static_graph
    def forward(self, x):
        return super().forward(x)


def _schedules(static):
    return [entry[1] for entry in static.schedule_manager._entries.values()]


def _kinds(schedule):
    programs = [p for p in schedule.programs.values() if p]
    assert programs
    return {ins[0] for p in programs for ins in p.instrs}


@pytest.mark.parametrize('device', DEVICES)
@pytest.mark.parametrize('cls', ['activations', 'tripled'])
def test_the_array_backward_runs_as_a_program(device, cls):
    plain_cls, static_cls = {
        'activations': (Activations, StaticActivations),
        'tripled': (WithTripled, StaticWithTripled)}[cls]
    plain, static = _pair(plain_cls, static_cls, device)
    rng = numpy.random.default_rng(7)
    dev = cpuframe.get_device('@intel64' if device == 'intel64' else '@numpy')

    def inputs(it):
        x = rng.standard_normal((5, 4)).astype(numpy.float32)
        if it == 5:
            x[0, :2] = [numpy.nan, numpy.inf]
            x[1, 0] = -3e38
        return dev.send(x)

    with numpy.errstate(all='ignore'):
        _train_both(plain, static, inputs, lambda y: F.sum(y * y), 8,
                    optimizer=True)
    assert static.python_calls == 2
    schedule, = _schedules(static)
    kinds = _kinds(schedule)
    if cls == 'activations':
        # every node's gradient computed directly (no backward_arrays call)
        assert kinds == {'compute'}
        assert schedule.lazy
    else:
        # a node whose backward makes arrays no computation recorded runs
        # as one instruction
        assert 'bwd' in kinds and 'compute' in kinds
        assert not schedule.lazy


def test_a_program_reads_what_define_by_run_would_read():
    plain, static = _pair(Activations, StaticActivations)
    rng = numpy.random.default_rng(3)
    x = rng.standard_normal((5, 4)).astype(numpy.float32)
    for _ in range(4):
        F.sum(static(cpuframe.Variable(x))).backward()
    schedule, = _schedules(static)
    assert schedule.lazy and _kinds(schedule) == {'compute'}

    def replaced(model, y):
        # a weight array replaced between forward and backward: the
        # backward reads the new one, as define-by-run's does
        model.l2.W.array = model.l2.W.array * 2
        F.sum(y * y).backward()

    def replaced_x(model, y):
        model.xv.array = model.xv.array * 2
        F.sum(y * y).backward()

    def hooked(model, y):
        with SeenLabels() as hook:   # registered after the (lazy) forward
            F.sum(y * y).backward()
        assert 'LinearFunction' in hook.labels and 'ReLU' in hook.labels

    def debug(model, y):
        with cpuframe.using_config('debug', True):
            F.sum(y * y).backward()

    def of_x(model, y):
        gx, = cpuframe.grad([F.sum(y * y)], [model.xv])
        model.gx = gx.array
        F.sum(y).backward()

    def twice(model, y):
        gx, = cpuframe.grad([F.sum(y * y)], [model.xv],
                            enable_double_backprop=True)
        model.gx = gx.array
        F.sum(gx * gx).backward()

    for case in (replaced, hooked, debug, of_x, twice, replaced_x, replaced):
        got = []
        for model in (plain, static):
            model.cleargrads()
            model.xv = cpuframe.Variable(x.copy())
            model.gx = None
            case(model, model(model.xv))
            got.append([numpy.asarray(p.grad) for _, p in
                        sorted(model.namedparams())] + [model.gx])
        for a, b in zip(*got):
            if a is None:
                assert b is None
            elif case is twice:
                # (second-order contributions from inside and outside the
                # replayed ops are summed in another grouping: the last
                # bits may differ, as before programs existed)
                numpy.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)
            else:
                numpy.testing.assert_array_equal(a, b, err_msg=case.__name__)
    assert static.python_calls == 2


class Arithmetic(Activations):
    """The arithmetic, array and loss nodes whose gradients a program
    computes directly, around the MLP."""

    def forward(self, x, t, index):
        y = super().forward(x)                       # (5, 3)
        h = (y - 0.5) * y / (F.exp(y) + 2.0) + 1.0
        h = F.reshape(-h, (3, 5)) * 3.0 - F.broadcast_to(F.sum(h), (3, 5))
        h = F.reshape(h, (5, 3)) / 4.0
        picked = h[1:4, ::2][..., 0] + h[index][:, 1]
        return F.mean_squared_error(h, t) + F.sum(picked * picked)


class StaticArithmetic(Arithmetic):
    @static_graph
    def forward(self, x, t, index):
        return super().forward(x, t, index)


@pytest.mark.parametrize('device', DEVICES)
def test_programs_compute_the_arithmetic_directly(device):
    plain, static = _pair(Arithmetic, StaticArithmetic, device)
    rng = numpy.random.default_rng(11)
    dev = cpuframe.get_device('@intel64' if device == 'intel64' else '@numpy')
    index = numpy.array([4, 0, 2])

    def inputs(it):
        return (dev.send(rng.standard_normal((5, 4)).astype(numpy.float32)),
                dev.send(rng.standard_normal((5, 3)).astype(numpy.float32)))

    opts = [cpuframe.optimizers.Adam().setup(m) for m in (plain, static)]
    for it in range(7):
        x, t = inputs(it)
        got = []
        for model, opt in zip((plain, static), opts):
            model.cleargrads()
            loss = model(x, t, index)
            loss.backward()
            got.append([_arrays(loss)] + [_arrays(p.grad) for _, p in
                                          sorted(model.namedparams())])
            opt.update()
        for a, b in zip(*got):
            numpy.testing.assert_array_equal(a, b, err_msg=str(it))
    assert static.python_calls == 2
    program, = [p for p in _schedules(static)[0].programs.values() if p]
    # (the getitem by an index array: one instruction; the rest computed)
    kinds = [ins[0] for ins in program.instrs]
    assert kinds.count('bwd') == 1 and 'compute' in kinds and 'sum' in kinds


class Indexed(MLP):
    """An argument array used as an op's setting (getitem's index)."""

    def forward(self, x, rows, cols):
        self.python_calls += 1
        return self.l2(F.relu(self.l1(x)))[rows, cols] * 2


class StaticIndexed(Indexed):
    @static_graph
    def forward(self, x, rows, cols):
        return super().forward(x, rows, cols)


def test_an_argument_used_as_a_setting_is_this_calls():
    plain, static = _pair(Indexed, StaticIndexed)
    x = numpy.linspace(-1, 1, 12, dtype=numpy.float32).reshape(3, 4)
    rows = numpy.arange(3)
    # (the same index twice: recorded and verified; then others)
    for cols in ([0, 1, 2], [0, 1, 2], [2, 0, 1], [1, 1, 1], [0, 2, 2]):
        got = []
        for model in (plain, static):
            model.cleargrads()
            y = model(x, rows, numpy.array(cols))
            F.sum(y * y).backward()
            got.append([y.array] + [p.grad for _, p in
                                    sorted(model.namedparams())])
        for a, b in zip(*got):
            numpy.testing.assert_array_equal(a, b, err_msg=str(cols))
    assert static.python_calls == 2
