"""What the fast paths of the core must not change (issue: small work).

``FunctionNode.apply`` reads each configuration key once, keeps array
inputs unwrapped unless the graph is recorded, checks types in light mode
(the expressions are built only to report a failure) and skips the type
checks of the backward's own gradient ops when nothing will differentiate
them again. Each test here pins one behaviour those shortcuts could break:
hooks, retention, constants, double backprop, the debug mode's NaN origin,
thread-local configuration, the dtype mode of a backward, and the type
errors' messages.
"""
import threading

import numpy
import pytest
from testhelpers.threads import run_in_threads

import cpuframe
import cpuframe.functions as F
from cpuframe import FunctionHook, FunctionNode, Variable
from cpuframe.backends import intel64
from cpuframe.configuration import GlobalConfig, LocalConfig, config
from cpuframe.utils import type_check


def _arr(*shape, seed=0):
    return numpy.random.RandomState(seed).uniform(
        0.5, 1.5, shape).astype(numpy.float32)


class Scale(FunctionNode):
    """``y = a * x`` for an array ``a`` (input 0) and ``x`` (input 1),
    retaining both inputs (Chainer's way) and checking types with
    ``make_variable`` and ``prod`` (light mode's special cases)."""

    def __init__(self, size=None):
        self.size = size

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('a', 'x'))
        a, x = in_types
        type_check.expect(a.dtype == x.dtype, a.shape == x.shape,
                          x.dtype.kind == 'f')
        if self.size is not None:
            size = type_check.make_variable(self.size, 'size')
            type_check.expect(type_check.prod(x.shape) == size)

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        self.seen_dtype = config.dtype
        return inputs[0] * inputs[1],

    def backward(self, indexes, grad_outputs):
        a, x = self.get_retained_inputs()
        self.backward_dtype = config.dtype
        gy, = grad_outputs
        return tuple({0: gy * x, 1: gy * a}[i] for i in indexes)


class Recorder(FunctionHook):
    name = 'Recorder'

    def __init__(self):
        self.calls = []

    def forward_preprocess(self, function, in_data):
        self.calls.append(('fpre', function.label, len(in_data)))

    def forward_postprocess(self, function, in_data):
        self.calls.append(('fpost', function.label, len(in_data)))

    def backward_preprocess(self, function, in_data, out_grad):
        self.calls.append(('bpre', function.label, len(out_grad)))

    def backward_postprocess(self, function, in_data, out_grad):
        self.calls.append(('bpost', function.label, len(out_grad)))


def test_array_constants_join_the_graph_when_it_is_recorded():
    a, x = _arr(2, 3), Variable(_arr(2, 3, seed=1))
    f = Scale()
    y, = f.apply((a, x))  # a stays an ndarray until the graph needs it
    assert y.creator_node is f and len(f.inputs) == 2
    assert f.inputs[0].requires_grad is False
    assert f.inputs[1] is x.node
    # a retained array constant is there for backward
    y.grad = numpy.ones_like(y.array)
    y.backward()
    numpy.testing.assert_allclose(x.grad, a)
    # no graph: no input nodes, no retention
    with cpuframe.no_backprop_mode():
        g = Scale()
        z, = g.apply((a, x))
    assert z.creator is None and g.inputs is None
    assert g.get_retained_inputs() == ()


def test_retained_inputs_survive_their_variables():
    a, x = Variable(_arr(4)), Variable(_arr(4, seed=1))
    y, = Scale().apply((a, x))
    del a  # the node keeps the retained array, rebuilt as a Variable
    y.grad = numpy.full(4, 2, numpy.float32)
    y.backward()
    numpy.testing.assert_allclose(x.grad, 2 * _arr(4))


def test_hooks_see_every_forward_and_backward():
    x = Variable(_arr(3))
    with Recorder() as hook:
        y = F.sum(F.relu(x) * 2)
        y.backward()
    labels = [c[1] for c in hook.calls if c[0] == 'fpre']
    assert labels[:3] == ['ReLU', '_ * 2', 'Sum']
    assert [c[0] for c in hook.calls[:2]] == ['fpre', 'fpost']
    backward = [(c[0], c[1]) for c in hook.calls if c[0] in ('bpre', 'bpost')]
    # each backward between its pre and post, highest rank first; the
    # gradient ops of the backward are hooked too (forward callbacks)
    assert backward[0] == ('bpre', 'Sum') and backward[-1] == ('bpost', 'ReLU')
    assert any(c[0] == 'fpre' and c[1] == 'ReLUGrad' for c in hook.calls)
    # a local hook on one node only
    local = Recorder()
    f = Scale()
    f.add_hook(local)
    f.apply((_arr(2), Variable(_arr(2))))
    assert [c[0] for c in local.calls] == ['fpre', 'fpost']


def test_double_backprop_records_the_backward_and_checks_its_types():
    x = Variable(_arr(3))
    y = F.sum(x * x * x)
    gx, = cpuframe.grad([y], [x], enable_double_backprop=True)
    assert gx.creator is not None  # recorded
    ggx, = cpuframe.grad([F.sum(gx)], [x])
    numpy.testing.assert_allclose(ggx.array, 6 * x.array, rtol=1e-6)
    assert ggx.creator is None  # first order: nothing recorded

    class BadBackward(FunctionNode):
        def forward(self, inputs):
            return inputs[0] * 2,

        def backward(self, indexes, grad_outputs):
            # an int gradient through exp: its type check fails
            return F.exp(Variable(numpy.ones(3, numpy.int32))) * 0 + \
                grad_outputs[0],

    x = Variable(_arr(3))
    y, = BadBackward().apply((x,))
    with pytest.raises(type_check.InvalidType, match='Exp'):
        cpuframe.grad([F.sum(y)], [x], enable_double_backprop=True)
    # after any backward the forward's checks are on again
    x2 = Variable(_arr(3))
    F.sum(x2 * 2).backward()
    with pytest.raises(type_check.InvalidType, match='Exp'):
        F.exp(Variable(numpy.ones(3, numpy.int32)))


def test_a_user_check_with_side_effects_runs_in_backward():
    # Some Chainer code sets in check_type_forward what its forward reads:
    # a user's class keeps its check inside a backward that is not
    # recorded (only cpuframe's own functions skip theirs there).
    class Halve(FunctionNode):
        def check_type_forward(self, in_types):
            self.factor = 0.5

        def forward(self, inputs):
            return inputs[0] * self.factor,

        def backward(self, indexes, grad_outputs):
            return Halve().apply(grad_outputs)

    x = Variable(_arr(3))
    y, = Halve().apply((x,))
    y.grad = numpy.ones(3, numpy.float32)
    y.backward()
    numpy.testing.assert_allclose(x.grad, numpy.full(3, 0.5, numpy.float32))


@pytest.mark.parametrize('type_check_on', [True, False])
def test_functions_do_not_need_their_type_check(type_check_on):
    # forward computes what it needs itself: with type checks off (as in
    # a backward that is not recorded) the results are the same
    a, b = Variable(_arr(2, 3, 4)), Variable(_arr(3, 4, 5, seed=1))
    with cpuframe.using_config('type_check', type_check_on):
        y = F.tensordot(a, b, axes=2)
        s = F.sum(a, axis=-1)
    numpy.testing.assert_allclose(
        y.array, numpy.tensordot(a.array, b.array, axes=2), rtol=1e-5)
    numpy.testing.assert_allclose(s.array, a.array.sum(axis=-1), rtol=1e-6)


def test_nested_grad_in_a_backward_restores_the_engine_state():
    class Inner(FunctionNode):
        def forward(self, inputs):
            self.retain_inputs((0,))
            return inputs[0] * 3,

        def backward(self, indexes, grad_outputs):
            x, = self.get_retained_inputs()
            # a recorded grad inside a backward that is not recorded
            v = Variable(x.array.copy())
            with cpuframe.force_backprop_mode():
                g, = cpuframe.grad([F.sum(v * v)], [v],
                                   enable_double_backprop=True)
            assert g.creator is not None
            return grad_outputs[0] * 3,

    x = Variable(_arr(3))
    y, = Inner().apply((x,))
    F.sum(y).backward()
    numpy.testing.assert_allclose(x.grad, numpy.full(3, 3, numpy.float32))
    from cpuframe.variable import backward_state
    assert backward_state.untracked is False


@pytest.mark.parametrize('where', ['forward', 'backward'])
def test_debug_mode_names_the_function_with_nan(where):
    x = Variable(numpy.array([1.0, 0.0, 2.0], numpy.float32))
    with cpuframe.using_config('debug', True):
        if where == 'forward':
            with pytest.raises(RuntimeError, match='forward computation of '
                               'Log'), numpy.errstate(divide='ignore'):
                F.log(x - 1)
        else:
            class NaNGrad(FunctionNode):
                def forward(self, inputs):
                    return inputs[0] * 1,

                def backward(self, indexes, grad_outputs):
                    return numpy.full(3, numpy.nan, numpy.float32),

            y, = NaNGrad().apply((x,))
            with pytest.raises(RuntimeError, match='backward computation '
                               'of NaNGrad'):
                F.sum(y).backward()


def test_configuration_is_thread_local_and_follows_the_global_one():
    seen = {}

    def other():
        seen['train'] = config.train
        seen['enable_backprop'] = config.enable_backprop
        with cpuframe.using_config('train', False):
            seen['inner'] = config.train

    with cpuframe.using_config('train', False), cpuframe.no_backprop_mode():
        t = threading.Thread(target=other)
        t.start()
        t.join(timeout=60)
        assert not t.is_alive()
        assert config.train is False
    assert seen == {'train': True, 'enable_backprop': True, 'inner': False}
    assert config.train is True
    old = cpuframe.global_config.use_ideep
    try:
        cpuframe.global_config.use_ideep = 'never'
        assert config.use_ideep == 'never'
        with cpuframe.using_config('use_ideep', 'always'):
            assert config.use_ideep == 'always'
        assert config.use_ideep == 'never'
    finally:
        cpuframe.global_config.use_ideep = old
    # Any value may be set (as in Chainer); the route choice rejects it.
    with cpuframe.using_config('use_ideep', 'sometimes'):
        with pytest.raises(ValueError, match='use_ideep'):
            cpuframe.functions.relu(numpy.ones(3, numpy.float32))
    # a configuration of one's own reads its own global values
    g = GlobalConfig()
    g.train = 'mine'
    local = LocalConfig(g)
    assert local.train == 'mine' and config.train is True
    g.train = 'changed'
    assert local.train == 'changed'


def test_a_graph_built_without_backprop_in_a_thread_is_not_recorded():
    x = Variable(_arr(3))
    out = {}

    def other():
        with cpuframe.no_backprop_mode():
            out['y'] = F.relu(x)
    t = threading.Thread(target=other)
    t.start()
    t.join(timeout=60)
    assert not t.is_alive()
    assert out['y'].creator is None
    assert F.relu(x).creator is not None


def test_backward_runs_in_the_dtype_mode_of_its_forward():
    a, x = Variable(_arr(2)), Variable(_arr(2, seed=1))
    with cpuframe.using_config('dtype', cpuframe.mixed_bf16):
        f = Scale()
        y, = f.apply((a, x))
    assert f.seen_dtype is cpuframe.mixed_bf16
    y.grad = numpy.ones(2, numpy.float32)
    y.backward()
    assert f.backward_dtype is cpuframe.mixed_bf16
    assert config.dtype is not cpuframe.mixed_bf16


@pytest.mark.parametrize('args, match', [
    (((_arr(2, 3), _arr(3, 2)), {}), r'a\.shape == x\.shape'),
    (((_arr(2), numpy.ones(2, numpy.float64)), {}),
     r'a\.dtype == x\.dtype'),
    (((numpy.ones(2, numpy.int32), numpy.ones(2, numpy.int32)), {}),
     r"x\.dtype\.kind == 'f'"),
    (((_arr(2, 3), _arr(2, 3)), {'size': 5}), r'prod\(x\.shape\) == size'),
    (((_arr(2),), {}), 'Invalid number of arguments'),
])
def test_type_errors_keep_their_messages(args, match):
    inputs, kwargs = args
    with pytest.raises(type_check.InvalidType, match=match) as e:
        Scale(**kwargs).apply(inputs)
    assert 'Invalid operation is performed in: Scale (Forward)' in str(e.value)
    if 'number of arguments' not in match:
        assert 'Expect:' in str(e.value) and 'Actual:' in str(e.value)
    # the same check passes where it should, in light mode
    y, = Scale(size=6).apply((_arr(2, 3), _arr(2, 3)))
    assert y.shape == (2, 3)


def test_type_check_off_checks_nothing():
    with cpuframe.using_config('type_check', False):
        y, = Scale().apply((_arr(3), _arr(3)))
        with pytest.raises(ValueError):  # NumPy's own error, no InvalidType
            Scale().apply((_arr(2, 3), _arr(3, 2)))
    assert y.shape == (3,)


def test_light_check_falls_back_to_the_full_check():
    # a check only the expression mode understands (an Expr method) still
    # passes or fails exactly as before
    class ExprOnly(FunctionNode):
        def check_type_forward(self, in_types):
            x = in_types[0]
            shape = type_check.eval(x.shape)
            type_check.expect(x.ndim == len(shape), x.shape[0] > 1)

        def forward(self, inputs):
            return inputs[0] + 1,

    assert ExprOnly().apply((_arr(3),))[0].shape == (3,)
    with pytest.raises(type_check.InvalidType, match=r'in_types\[0\]'):
        ExprOnly().apply((_arr(1),))
    assert not type_check.light_check(lambda t: None, (None,))


# -- apply's input cases (one, two or three Variables/Parameters without lists) --
class Product3(FunctionNode):
    """``y = x0 * x1 (* x2)`` elementwise, retaining its inputs."""

    def forward(self, inputs):
        self.retain_inputs(tuple(range(len(inputs))))
        y = inputs[0].copy()
        for x in inputs[1:]:
            y = y * x
        return y,

    def backward(self, indexes, grad_outputs):
        xs = self.get_retained_inputs()
        gy, = grad_outputs
        ret = []
        for i in indexes:
            g = gy
            for j, x in enumerate(xs):
                if j != i:
                    g = g * x
            ret.append(g)
        return tuple(ret)


class _OwnVariable(Variable):
    """A Variable subclass (apply's general path)."""


_KINDS = {
    'variable': lambda a: Variable(a),
    'parameter': lambda a: cpuframe.Parameter(a),
    'constant': lambda a: Variable(a, requires_grad=False),
    'array': lambda a: a,
    'subclass': lambda a: _OwnVariable(a),
}


@pytest.mark.parametrize('kinds', [
    ('variable',), ('parameter',), ('array',),
    ('variable', 'parameter'), ('parameter', 'constant'),
    ('array', 'parameter'), ('variable', 'array'), ('parameter', 'array'),
    ('array', 'array'), ('subclass', 'array'),
    ('variable', 'parameter', 'parameter'), ('parameter',) * 3,
    ('constant', 'parameter', 'constant'), ('constant',) * 3,
    ('array', 'parameter', 'parameter'), ('array', 'variable', 'constant'),
    ('array', 'constant', 'parameter'),
    ('variable', 'array', 'parameter'), ('subclass', 'parameter', 'variable'),
])
@pytest.mark.parametrize('backprop', [True, False])
def test_apply_links_each_input_kind_as_the_general_path(kinds, backprop):
    arrays = [_arr(2, 3, seed=i) for i in range(len(kinds))]
    ins = [_KINDS[k](a) for k, a in zip(kinds, arrays)]
    # an input made by another op has a rank above 0
    deep = ins[-1]
    if isinstance(deep, Variable) and deep.requires_grad:
        ins[-1] = F.identity(F.identity(deep))
    with cpuframe.using_config('enable_backprop', backprop):
        node = Product3()
        y, = node.apply(ins)
    numpy.testing.assert_array_equal(
        y.array, numpy.prod(numpy.stack(arrays), axis=0))
    needs = any(isinstance(x, Variable) and x.requires_grad for x in ins)
    assert y.requires_grad == needs
    if not backprop:
        assert y.creator is None
        return
    assert y.creator is node and len(node.inputs) == len(ins)
    ranks = []
    for x, n in zip(ins, node.inputs):
        if isinstance(x, Variable):
            assert n is x.node
            ranks.append(x.node.rank)
        else:
            assert n.data is x and not n.requires_grad   # a constant's node
            ranks.append(0)
    assert node.rank == max(ranks) and y.node.rank == node.rank + 1
    if needs:
        y.grad = numpy.ones_like(y.array)
        y.backward()
        for i, (k, x) in enumerate(zip(kinds, ins)):
            if k in ('variable', 'parameter', 'subclass'):
                others = [a for j, a in enumerate(arrays) if j != i]
                expect = numpy.prod(numpy.stack(others), axis=0) if others \
                    else numpy.ones_like(arrays[0])
                leaf = x if x.creator is None else deep
                numpy.testing.assert_allclose(leaf.grad, expect, rtol=1e-6)


def test_apply_on_three_variables_has_the_numerical_gradient():
    arrays = [_arr(3, 2, seed=i).astype(numpy.float64) for i in range(3)]
    cpuframe.gradient_check.check_backward(
        lambda a, b, c: Product3().apply((a, b, c))[0],
        tuple(arrays), _arr(3, 2, seed=5).astype(numpy.float64), dtype=None,
        atol=1e-6, rtol=1e-5)


# -- the optimizer's direct update (UpdateRule._update_direct) -----------------
class _GeneralParameter(cpuframe.Parameter):
    """A parameter whose ``update`` is its own: the optimizer then takes
    the general path (UpdateRule.update) for it."""

    def update(self):
        super().update()


def _make_params(general, fp16=False):
    cls = _GeneralParameter if general else cpuframe.Parameter
    rng = numpy.random.default_rng(0)
    dtype = numpy.float16 if fp16 else numpy.float32
    link = cpuframe.Link()
    with link.init_scope():
        link.a = cls(rng.standard_normal((3, 4)).astype(dtype))
        link.b = cls(rng.standard_normal((5,)).astype(dtype))
    return link


class _OwnAdamRule(cpuframe.optimizers.adam.AdamRule):
    """An Adam rule whose ``update_core_cpu`` is its own (halved steps)."""

    def update_core_cpu(self, param):
        before = param.array.copy()
        super().update_core_cpu(param)
        param.array[...] = before + (param.array - before) / 2


@pytest.mark.parametrize('case', ['plain', 'hook', 'disabled', 'loss_scale',
                                  'fp16_master', 'readonly_grad', 'no_grad',
                                  'own_hyperparam', 'schedule', 'uninit',
                                  'own_core'])
@pytest.mark.parametrize('opt_name', ['SGD', 'MomentumSGD', 'Adam'])
def test_direct_update_matches_the_general_path(case, opt_name):
    # the general path: a Parameter whose update is its own
    results = []
    for general in (False, True):
        link = _make_params(general, fp16=case == 'fp16_master')
        if case == 'uninit':
            with link.init_scope():
                link.c = (_GeneralParameter if general
                          else cpuframe.Parameter)()
        opt = getattr(cpuframe.optimizers, opt_name)()
        opt.setup(link)
        name = 'alpha' if opt_name == 'Adam' else 'lr'
        if case == 'own_hyperparam':
            # a rule's own value over the optimizer's
            setattr(link.a.update_rule.hyperparam, name, 0.25)
        if case == 'own_core' and opt_name == 'Adam':
            rule = _OwnAdamRule(opt.hyperparam)
            link.a.update_rule = rule
        if case == 'fp16_master':
            opt.use_fp32_update()
        calls = []
        if case == 'hook':
            link.a.update_rule.add_hook(
                lambda rule, p, seen=calls: seen.append(rule.t))
        if case == 'disabled':
            link.b.update_rule.enabled = False
        rng = numpy.random.default_rng(1)
        for _ in range(3):
            for p in link.params(include_uninit=False):
                if case == 'no_grad' and p is link.b:
                    p.grad = None
                    continue
                g = rng.standard_normal(p.shape).astype(p.dtype)
                if case == 'readonly_grad':
                    g.flags.writeable = False
                p.grad = g
                if case == 'loss_scale':
                    p._loss_scale = 8.0     # as backward(loss_scale=8) leaves it
            if case == 'schedule':
                # an extension's schedule writes the optimizer's value
                setattr(opt, name, getattr(opt, name) * 0.5)
            opt.update()
        rules = [p.update_rule for p in link.params()]
        results.append(([p.array.copy() for p in (link.a, link.b)],
                         [p.update_rule.t for p in (link.a, link.b)], calls,
                         [r.t for r in rules]))
    (arrays_d, t_d, calls_d, all_t_d), (arrays_g, t_g, calls_g, all_t_g) = \
        results
    for a, b in zip(arrays_d, arrays_g):
        numpy.testing.assert_array_equal(a, b)
    assert t_d == t_g and calls_d == calls_g and all_t_d == all_t_g
    if case == 'hook':
        assert calls_d == [1, 2, 3]
    if case == 'disabled':
        assert t_d[1] == 0
    if case == 'uninit':
        # the uninitialized parameter's rule counts the steps too
        assert all_t_d == [3, 3, 3]
    if case in ('own_hyperparam', 'schedule', 'own_core'):
        # the case changed the result (the comparison above is not vacuous)
        plain = _make_params(False)
        opt = getattr(cpuframe.optimizers, opt_name)().setup(plain)
        rng = numpy.random.default_rng(1)
        for _ in range(3):
            for p in plain.params():
                p.grad = rng.standard_normal(p.shape).astype(p.dtype)
            opt.update()
        differs = not numpy.array_equal(plain.a.array, arrays_d[0])
        assert differs or (case == 'own_core' and opt_name != 'Adam')


def test_an_optimizer_overriding_call_hooks_is_called_without_hooks():
    # (the update skips the hook walk where no hook is registered, but not
    # a subclass's own call_hooks)
    timings = []

    class Logged(cpuframe.optimizers.SGD):
        def call_hooks(self, timing='pre'):
            timings.append(timing)
            super().call_hooks(timing)

    link = _make_params(False)
    opt = Logged().setup(link)
    for p in link.params():
        p.grad = numpy.ones(p.shape, p.dtype)
    opt.update()
    assert timings == ['pre', 'post']
    # one set on the instance (a test's mock) too
    del timings[:]
    plain = cpuframe.optimizers.SGD().setup(link)
    plain.call_hooks = lambda timing='pre': timings.append(timing)
    plain.update()
    assert timings == ['pre', 'post']


def test_an_update_before_setup_still_raises():
    opt = cpuframe.optimizers.SGD()
    opt.target = _make_params(False)    # (set by hand, without setup)
    with pytest.raises(RuntimeError, match='setup'):
        opt.update()


def test_an_adam_subclass_update_core_cpu_sees_every_update():
    # (also a parameter whose gradient is gone when the rules run: the
    # subclass's method is called, as the general path calls it)
    seen = []

    class Counting(cpuframe.optimizers.adam.AdamRule):
        def update_core_cpu(self, param):
            seen.append(param.grad is None)
            super().update_core_cpu(param)

    class Clearing(cpuframe.optimizers.Adam):
        def create_update_rule(self):
            return Counting(self.hyperparam)

        def call_hooks(self, timing='pre'):
            super().call_hooks(timing)
            if timing == 'pre':
                link.a.grad = None

    link = _make_params(False)
    opt = Clearing().setup(link)
    for _ in range(2):
        for p in link.params():
            p.grad = numpy.ones(p.shape, p.dtype)
        opt.update()
    assert seen == [True, False] * 2   # a (no gradient), b, per update


@pytest.mark.skipif(not intel64.is_ideep_available(),
                    reason='needs the native module')
@pytest.mark.parametrize('case', ['plain', 'numpy_grad', 'readonly_grad',
                                  'hook', 'loss_scale', 'no_grad',
                                  'amsgrad_on', 'replaced_array'])
@pytest.mark.parametrize('opt_name', ['SGD', 'MomentumSGD', 'Adam'])
def test_direct_update_on_device_matches_the_general_path(
        case, opt_name, monkeypatch):
    # Parameters on '@intel64': once the element-wise update's views exist
    # (after the first update), the direct path runs them (the optimizer's
    # shared step on the views, or the rule's own direct update there);
    # parameters, step counts and hook calls equal the general path's, bit
    # for bit.
    from cpuframe.backends.intel64._device import _Plan
    direct_runs = []
    original = _Plan.update_direct
    original_shared = _Plan.update_shared

    def spy(self, rule, data, grad):
        done = original(self, rule, data, grad)
        direct_runs.append(done)
        return done

    def spy_shared(self, rule, step, data, grad):
        done = original_shared(self, rule, step, data, grad)
        direct_runs.append(done)
        return done
    monkeypatch.setattr(_Plan, 'update_direct', spy)
    monkeypatch.setattr(_Plan, 'update_shared', spy_shared)
    results = []
    for general in (False, True):
        link = _make_params(general)
        link.to_device('@intel64')
        opt = getattr(cpuframe.optimizers, opt_name)()
        opt.setup(link)
        calls = []
        if case == 'hook':
            link.a.update_rule.add_hook(
                lambda rule, p, seen=calls: seen.append(rule.t))
        rng = numpy.random.default_rng(1)
        for step in range(4):
            if case == 'amsgrad_on' and step == 2 and opt_name == 'Adam':
                opt.amsgrad = True  # a new state entry (vhat) from now on
            if case == 'replaced_array' and step == 2:
                link.b.array = intel64.from_numpy(
                    numpy.asarray(link.b.array) * 2)
            for p in link.params():
                if case == 'no_grad' and p is link.b and step == 3:
                    p.grad = None
                    continue
                g = rng.standard_normal(p.shape).astype(numpy.float32)
                if case == 'readonly_grad':
                    g.flags.writeable = False
                if case in ('plain', 'hook', 'loss_scale', 'amsgrad_on',
                            'replaced_array', 'no_grad'):
                    g = intel64.from_numpy(g)
                p.grad = g
                if case == 'loss_scale':
                    p._loss_scale = 8.0
            opt.update()
        results.append(([numpy.asarray(p.array).copy()
                         for p in (link.a, link.b)],
                         [p.update_rule.t for p in (link.a, link.b)], calls))
    (arrays_d, t_d, calls_d), (arrays_g, t_g, calls_g) = results
    for a, b in zip(arrays_d, arrays_g):
        numpy.testing.assert_array_equal(a, b)
    assert t_d == t_g == [4, 4] and calls_d == calls_g
    if case in ('plain', 'numpy_grad', 'amsgrad_on', 'replaced_array',
                'no_grad'):
        assert any(direct_runs)  # the direct path ran
    if case == 'hook':
        assert calls_d == [1, 2, 3, 4]


# -- type checks decided once per signature (FunctionNode._type_check_attrs) --

class _Counted(FunctionNode):
    """Declares that its check reads ``self.size`` besides the inputs."""

    _type_check_attrs = ('size',)
    calls = 0

    def __init__(self, size):
        self.size = size

    def check_type_forward(self, in_types):
        type(self).calls += 1
        type_check.argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f',
                          type_check.prod(in_types[0].shape) == self.size)

    def forward(self, inputs):
        return inputs[0] * 2,

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] * 2,


def test_a_passed_check_runs_once_per_signature():
    from cpuframe import function_node
    function_node._checked_signatures.clear()
    _Counted.calls = 0
    x = _arr(2, 3)
    for _ in range(3):
        y, = _Counted(6).apply((x,))
    assert _Counted.calls == 1
    numpy.testing.assert_array_equal(y.array, x * 2)
    # another shape, dtype or array type, or another attribute value: a
    # new signature, checked (and then kept)
    _Counted(6).apply((_arr(3, 2),))
    _Counted(6).apply((x.astype(numpy.float64),))
    _Counted(12).apply((_arr(3, 4),))
    _Counted(12).apply((_arr(3, 4),))
    assert _Counted.calls == 4
    # same input types, an attribute value that fails: checked, and it
    # fails with Chainer's message every time (failures are not kept)
    for _ in range(2):
        with pytest.raises(type_check.InvalidType,
                           match=r'prod\(x\.shape\) == 7'):
            _Counted(7).apply((x,))
    # (each failing call runs the check twice: light, then with the
    # expressions that word the message)
    assert _Counted.calls == 8
    with cpuframe.using_config('type_check', False):
        _Counted(5).apply((x,))  # off: nothing is checked
    assert _Counted.calls == 8


def test_signature_checks_of_cpuframe_functions_still_fail():
    x = Variable(_arr(2, 8))
    assert F.reshape(x, (4, 4)).shape == (4, 4)
    for _ in range(2):
        with pytest.raises(ValueError, match='cannot reshape'):
            F.reshape(x, (3, 5))  # same input, another shape attribute
        with pytest.raises(type_check.InvalidType, match='dtype'):
            x + Variable(numpy.ones((2, 8), numpy.float64))
        with pytest.raises(type_check.InvalidType):
            F.linear(x, Variable(_arr(3, 7)))
    assert (x + x).shape == (2, 8)
    assert F.linear(x, Variable(_arr(3, 8))).shape == (2, 3)


def test_an_unhashable_attribute_or_a_none_input_is_checked_each_call():
    class Listed(_Counted):
        _type_check_attrs = ('size',)
    Listed.calls = 0
    x = _arr(2, 3)

    class Eq(list):  # a size that compares equal to 6, unhashable
        def __eq__(self, other):
            return other == 6
        __hash__ = None
    for _ in range(2):
        Listed(Eq([6])).apply((x,))
    assert Listed.calls >= 2


def test_a_subclass_overriding_the_check_is_checked_every_call():
    seen = []
    from cpuframe.functions.math.basic_math import Add
    assert Add._type_check_attrs == ()

    class MyAdd2(Add):
        def check_type_forward(self, in_types):
            seen.append(1)
            super().check_type_forward(in_types)
    assert MyAdd2._type_check_attrs is None
    x = _arr(2, 3)
    for _ in range(3):
        y, = MyAdd2().apply((x, x))
    assert len(seen) == 3
    numpy.testing.assert_array_equal(y.array, x + x)


def test_the_signature_set_is_bounded_and_thread_safe():
    from cpuframe import function_node
    seeds = iter(range(4))

    def work():
        seed = next(seeds)
        for n in range(1, 400):
            x = numpy.ones(n + seed * 1000, numpy.float32)
            y, = _Counted(x.size).apply((x,))
            assert y.shape == x.shape
            with pytest.raises(type_check.InvalidType):
                _Counted(x.size + 1).apply((x,))
    assert not run_in_threads(work, 4)
    assert len(function_node._checked_signatures) <= \
        function_node._CHECKED_SIGNATURES_MAX


def _function_node_classes():
    import importlib
    import pkgutil

    import cpuframe.functions as functions
    for info in pkgutil.walk_packages(functions.__path__,
                                      functions.__name__ + '.'):
        importlib.import_module(info.name)
    seen, stack = set(), [FunctionNode]
    while stack:
        cls = stack.pop()
        for sub in cls.__subclasses__():
            if sub not in seen:
                seen.add(sub)
                stack.append(sub)
    return [c for c in seen if c.__module__.startswith('cpuframe.')]


def test_declared_checks_read_only_what_they_declare():
    # A class whose check is decided once per signature must name every
    # attribute of self its check reads, and its check must not write to
    # self, call its methods or read the configuration (the signature
    # would then not decide the check): read from the source.
    import ast
    import inspect
    import textwrap
    checked = 0
    for cls in _function_node_classes():
        attrs = cls._type_check_attrs
        if attrs is None:
            continue
        owner = next(c for c in cls.__mro__
                     if 'check_type_forward' in vars(c))
        tree = ast.parse(textwrap.dedent(
            inspect.getsource(owner.check_type_forward)))
        read, bare = set(), 0
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and \
                    isinstance(node.value, ast.Name) and \
                    node.value.id == 'self':
                assert not isinstance(node.ctx, ast.Store), cls
                read.add(node.attr)
            if isinstance(node, ast.Name) and node.id == 'self':
                bare += 1
            assert not (isinstance(node, ast.Name) and node.id == 'config'), \
                cls
        uses = sum(1 for node in ast.walk(tree)
                   if isinstance(node, ast.Attribute) and
                   isinstance(node.value, ast.Name) and node.value.id == 'self')
        # (one bare ``self``: the parameter's own name is an ast.arg)
        assert bare == uses, '{}: self used other than by attribute'.format(
            cls.__name__)
        assert read <= set(attrs), '{} reads {} but declares {}'.format(
            cls.__name__, sorted(read), attrs)
        checked += 1
    assert checked >= 100
