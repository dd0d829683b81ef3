"""The native core (``cpuframe._core``: ``FunctionNode.apply`` and
``Variable._of_output`` in C) against the Python definitions it mirrors.

Each scenario runs twice, with the native core and with the Python one
(``function_node.native_core(False)``), and what it leaves behind is
compared: the outputs' values and Variables (every attribute, in the
order it was set), the graph (each node's class, rank, inputs, output
metadata, retained arrays, route and dtype facts), the gradients a backward
computes and the errors raised. The Python core is the reference; a build
without the module runs it alone (the module's tests skip there).
"""
import gc
import sys
import threading
import weakref

import numpy
import pytest
from testhelpers.threads import run_in_threads

import cpuframe
import cpuframe.functions as F
from cpuframe import FunctionHook, FunctionNode, Variable, function_node
from cpuframe.backends import intel64
from cpuframe.configuration import config, using_config
from cpuframe.utils import type_check

pytestmark = pytest.mark.skipif(
    function_node._native_apply is None,
    reason='cpuframe._core is not built here (the Python core runs alone)')


@pytest.fixture(autouse=True)
def _native_core_restored():
    was = function_node.native_core()
    yield
    function_node.native_core(was)


def _arr(*shape, seed=0, low=-1.0, high=1.0):
    return numpy.random.RandomState(seed).uniform(
        low, high, shape).astype(numpy.float32)


def _same(a, b):
    if a is None or b is None:
        return a is b
    a, b = numpy.asarray(a), numpy.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and \
        numpy.array_equal(a, b, equal_nan=True)


def _fingerprint(outputs):
    """What apply left: the Variables and the graph behind them."""
    seen, nodes, out = {}, [], []

    def attrs(obj):
        # (the slots Variable and VariableNode declare, then the instance
        # dictionary in the order it was written)
        names = [n for cls in type(obj).__mro__
                 for n in getattr(cls, '__slots__', ()) if n[:2] != '__']
        return [(n, type(getattr(obj, n)).__name__) for n in names] + \
            [(k, type(x).__name__) for k, x in vars(obj).items()]

    def var_facts(v):
        facts = attrs(v)
        node = v.node
        nfacts = attrs(node)
        return (type(v).__name__, facts, nfacts, v.requires_grad,
                type(v.requires_grad).__name__, node.rank, node.shape,
                str(node.dtype), node.name,
                None if node.data is None else numpy.asarray(node.data).tolist())

    def visit(fn):
        if fn is None or id(fn) in seen:
            return
        seen[id(fn)] = len(nodes)
        facts = {
            'class': type(fn).__name__, 'rank': fn.rank,
            'n_inputs': len(fn.inputs),
            'input_ranks': [x.rank for x in fn.inputs],
            'input_shapes': [x.shape for x in fn.inputs],
            'input_data': [None if x.data is None else
                           numpy.asarray(x.data).tolist() for x in fn.inputs],
            'input_requires_grad': [x.requires_grad for x in fn.inputs],
            'meta': [(tuple(s), str(d), str(dev)) for s, d, dev in
                     (fn._output_meta or ())],
            'outputs_alive': [r() is not None for r in fn.outputs],
            'in_retain': fn._input_indexes_to_retain,
            'out_retain': fn._output_indexes_to_retain,
            'retained_out': None if fn._retained_output_data is None else
            [numpy.asarray(y).tolist() for y in fn._retained_output_data],
            'forward_dtype': str(fn._forward_dtype),
            'bf16_forward': fn._bf16_forward,
        }
        nodes.append(facts)
        for x in fn.inputs:
            visit(x.creator_node)

    for y in outputs:
        out.append((var_facts(y), numpy.asarray(y.array).tolist(),
                    type(y.array).__name__))
        visit(y.creator_node)
    return out, nodes


def _both(scenario):
    """``scenario()``'s result under the native core, then the Python one."""
    results = []
    for native in (True, False):
        function_node.native_core(native)
        try:
            results.append(('ok', scenario()))
        except Exception as e:  # noqa: BLE001 - compared below
            results.append(('raised', type(e), str(e)))
    function_node.native_core(True)
    return results


def _assert_same(scenario):
    native, python = _both(scenario)
    assert native[0] == python[0], (native, python)
    if native[0] == 'raised':
        assert native[1:] == python[1:]
        return native
    assert repr(native[1]) == repr(python[1])
    return native


def _assert_same_watching_routes(scenario, chosen):
    """``_assert_same`` with every route choice appended to ``chosen``
    (``function_node._route_watch``, restored after)."""
    old = function_node._route_watch[0]
    function_node._route_watch[0] = lambda node, c: chosen.append(
        (type(node).__name__, c))
    try:
        return _assert_same(scenario)
    finally:
        function_node._route_watch[0] = old


def _graph(make):
    def scenario():
        outs = make()
        outs = outs if isinstance(outs, tuple) else (outs,)
        return _fingerprint(outs)
    return scenario


def _grads(make, leaves):
    def scenario():
        for v in leaves:
            v.cleargrad()
        y = make()
        loss = F.sum(y) if y.size > 1 else y
        loss.backward()
        return [None if v.grad is None else v.grad.tolist() for v in leaves]
    return scenario


def test_installed_and_switchable():
    assert function_node.native_core() is True
    assert type(FunctionNode.__dict__['apply']).__name__ == 'method_descriptor'
    assert function_node.native_core(False) is True
    assert FunctionNode.apply is FunctionNode._apply_python
    assert function_node._of_output == Variable._of_output
    assert function_node.native_core(True) is False
    assert Variable._of_output is cpuframe._core.of_output


X, Y = _arr(3, 4), _arr(3, 4, seed=1)
W, B = _arr(5, 4, seed=2), _arr(5, seed=3)


@pytest.mark.parametrize('name,make', [
    ('one variable', lambda: F.relu(Variable(X))),
    ('one array', lambda: F.relu(X)),
    ('two variables', lambda: Variable(X) * Variable(Y)),
    ('variable and array', lambda: F.mean_squared_error(Variable(X), Y)),
    ('array and variable', lambda: F.add(X, Variable(Y))),
    ('two arrays', lambda: F.add(X, Y)),
    ('three variables', lambda: F.linear(Variable(X), Variable(W),
                                         Variable(B))),
    ('array and two variables', lambda: F.linear(X, Variable(W),
                                                 Variable(B))),
    ('variable, array, variable', lambda: F.linear(Variable(X), W,
                                                   Variable(B))),
    ('three arrays', lambda: F.linear(X, W, B)),
    ('parameters', lambda: F.linear(Variable(X), cpuframe.Parameter(W),
                                    cpuframe.Parameter(B))),
    ('four inputs', lambda: F.concat([Variable(X), Y, Variable(X),
                                      Variable(Y)], axis=0)),
    ('no gradient wanted', lambda: F.tanh(Variable(X, requires_grad=False))),
    ('mixed requires_grad', lambda: Variable(X, requires_grad=False) +
     Variable(Y)),
    ('retained outputs', lambda: F.sigmoid(Variable(X))),
    ('several outputs', lambda: F.split_axis(Variable(X), 2, axis=1)),
    ('a chain', lambda: F.sum(F.exp(F.tanh(Variable(X) * 2 + 1)) / 3)),
    ('softmax cross entropy', lambda: F.softmax_cross_entropy(
        Variable(X), numpy.array([0, 1, 3], numpy.int32))),
    ('getitem', lambda: Variable(X)[1:, ::2]),
    ('reshape', lambda: F.reshape(Variable(X), (2, 6))),
])
def test_the_graph_and_variables_are_the_python_core_s(name, make):
    _assert_same(_graph(make))
    with cpuframe.no_backprop_mode():
        _assert_same(_graph(make))


@pytest.mark.parametrize('make_leaves', [
    lambda: (Variable(X), Variable(Y)),
    lambda: (Variable(X), Variable(Y, requires_grad=False)),
])
def test_gradients_are_the_python_core_s(make_leaves):
    a, b = make_leaves()
    w, bias = Variable(W), Variable(B)
    _assert_same(_grads(lambda: F.sigmoid(F.linear(a * b + a, w, bias)),
                        (a, b, w, bias)))
    _assert_same(_grads(lambda: F.softmax_cross_entropy(
        F.linear(F.relu(a - b), w, bias),
        numpy.array([0, 4, 2], numpy.int32)), (a, b, w, bias)))


def test_double_backprop_is_the_python_core_s():
    def scenario():
        x = Variable(X)
        y = F.sum(F.tanh(x) * x * x)
        gx, = cpuframe.grad([y], [x], enable_double_backprop=True)
        ggx, = cpuframe.grad([F.sum(gx * gx)], [x])
        return gx.array.tolist(), ggx.array.tolist(), _fingerprint((gx,))
    _assert_same(scenario)


@pytest.mark.parametrize('values', ['nan', 'inf', 'huge'])
@pytest.mark.parametrize('mode', ['never', 'auto', 'always'])
def test_routes_and_special_values_are_the_python_core_s(values, mode):
    if mode == 'always' and not intel64.is_ideep_available():
        pytest.skip('no native module')
    x = _arr(8, 64, seed=4) * 10
    x[0, 0] = {'nan': numpy.nan, 'inf': numpy.inf, 'huge': 3e38}[values]
    x[1, 1] = -x[0, 0]
    w = _arr(64, 64, seed=5)
    chosen = []

    def scenario():
        chosen.clear()
        with using_config('use_ideep', mode):
            h = F.relu(F.linear(Variable(x), Variable(w)))
            h = F.max_pooling_2d(F.reshape(h, (8, 1, 8, 8)), 2)
            return _fingerprint((h,)), list(chosen)
    native = _assert_same_watching_routes(scenario, chosen)
    assert native[1][1], 'the route watch was told nothing'


def test_device_arrays_are_the_python_core_s():
    if not intel64.is_ideep_available():
        pytest.skip('no native module')
    xd = intel64.from_numpy(_arr(4, 16, seed=6))
    wd = intel64.from_numpy(_arr(8, 16, seed=7))

    def scenario(mode):
        with using_config('use_ideep', mode):
            y = F.relu(F.linear(Variable(xd), Variable(wd)))
            z = F.sum(y * y)
            z.backward()
        return _fingerprint((y,)), type(y.array).__name__
    _assert_same(lambda: scenario('auto'))
    native = _assert_same(lambda: scenario('always'))
    assert native[1][1] == type(xd).__name__


@pytest.mark.parametrize('mode', ['never', 'auto', 'always'])
@pytest.mark.parametrize('size', ['small', 'large'])
def test_device_routes_are_the_python_core_s(mode, size):
    """Device arrays (with NumPy arrays beside them) under each mode, below
    and above 'auto''s size rules, a blocked convolution output, NaN and
    inf: the same routes, arrays, layouts and gradients."""
    if not intel64.is_ideep_available():
        pytest.skip('no native module')
    n, c = (2, 4) if size == 'small' else (16, 32)
    x = _arr(n, c, 8, 8, seed=8) * 4
    x[0, 0, 0, 0], x[-1, -1, -1, -1] = numpy.nan, numpy.inf
    w = _arr(c, c, 3, 3, seed=9)
    lw = _arr(10, c * 16, seed=10)
    chosen = []

    def scenario():
        chosen.clear()
        xd, wd, lwd = (intel64.from_numpy(a) for a in (x, w, lw))
        with using_config('use_ideep', mode):
            xv, wv, lv = Variable(xd), Variable(wd), Variable(lwd)
            h = F.relu(F.convolution_2d(xv, wv, pad=1))
            h = F.max_pooling_2d(h + xd, 2)
            h = F.linear(h, lv)
            h = F.tanh(h * numpy.float32(0.5)) + _arr(n, 10, seed=11)
            loss = F.sum(h * h)
            loss.backward()
        return (_fingerprint((h,)), list(chosen),
                [type(a.array).__name__ for a in (h,)],
                [None if v.grad is None else numpy.asarray(v.grad).tolist()
                 for v in (xv, wv, lv)])
    native = _assert_same_watching_routes(scenario, chosen)
    assert native[1][1], 'the route watch was told nothing'


class _Custom(FunctionNode):
    """A user's node: its own type check (no signature attributes), an
    explicit retain, a forward that may return what it is told to."""

    def __init__(self, result=None, check=True):
        self.result = result
        self.check = check

    def check_type_forward(self, in_types):
        if self.check:
            type_check.expect(in_types[0].dtype.kind == 'f',
                              in_types[0].ndim == 2)

    def forward(self, inputs):
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        if self.result is not None:
            return self.result
        return inputs[0] * 2,

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] * 2,


@pytest.mark.parametrize('case', [
    'ok', 'bad dtype', 'bad ndim', 'list result', 'non-array element',
    'none input', 'keyword call', 'list inputs', 'negative retain'])
def test_a_user_node_s_errors_and_retention_are_the_python_core_s(case):
    def scenario():
        x = Variable(X)
        if case == 'ok':
            return _fingerprint(_Custom().apply((x,)))
        if case == 'bad dtype':
            return _Custom().apply((X.astype(numpy.int32),))
        if case == 'bad ndim':
            return _Custom().apply((Variable(X[0]),))
        if case == 'list result':
            return _Custom(result=[X]).apply((x,))
        if case == 'non-array element':
            return _Custom(result=(X, 3)).apply((x,))
        if case == 'none input':
            return _Custom(check=False).apply((None,))
        if case == 'keyword call':
            return _fingerprint(_Custom().apply(inputs=(x,)))
        if case == 'list inputs':
            return _fingerprint(_Custom().apply([x]))
        node = _Custom()
        node.retained_for_backward = ((-1,), ())
        return _fingerprint(node.apply((x,)))
    _assert_same(scenario)


def test_debug_mode_names_the_op_that_made_a_nan():
    def scenario():
        with using_config('debug', True):
            return F.log(Variable(-numpy.ones((2, 2), numpy.float32)))
    native = _assert_same(scenario)
    assert native[0] == 'raised' and 'Log' in native[2]


def test_hooks_are_called_as_by_the_python_core():
    class Seen(FunctionHook):
        name = 'Seen'

        def __init__(self):
            self.calls = []

        def forward_preprocess(self, function, in_data):
            self.calls.append(('pre', type(function).__name__,
                               [x.shape for x in in_data]))

        def forward_postprocess(self, function, in_data):
            self.calls.append(('post', type(function).__name__))

    def scenario():
        with Seen() as hook:
            y = F.relu(Variable(X) + Y)
        node = F.tanh(Variable(X)).creator_node
        local = Seen()
        node.add_hook(local)
        node.apply((Variable(Y),))
        return hook.calls, local.calls, _fingerprint((y,))
    native = _assert_same(scenario)
    assert len(native[1][0]) == 4 and len(native[1][1]) == 2


def _numbered(work):
    """``work(i)`` for the i-th thread that calls the result."""
    lock, count = threading.Lock(), [0]

    def body():
        with lock:
            i = count[0]
            count[0] += 1
        work(i)
    return body


def test_thread_local_configuration_is_read_per_call():
    out = {}

    def worker(i):
        with using_config('enable_backprop', i % 2 == 0):
            for _ in range(50):
                y = F.relu(Variable(X) * 2)
            out[i] = y.creator_node is not None

    assert run_in_threads(_numbered(worker), 4) == []
    assert out == {0: True, 1: False, 2: True, 3: False}


def test_threads_share_nothing_per_call():
    results = {}

    def worker(i):
        x = Variable(_arr(6, 5, seed=i))
        w = Variable(_arr(4, 5, seed=10 + i))
        for _ in range(30):
            x.cleargrad()
            w.cleargrad()
            loss = F.sum(F.tanh(F.linear(x, w)))
            loss.backward()
        results[i] = (loss.array.item(), x.grad.copy(), w.grad.copy())

    assert run_in_threads(_numbered(worker), 4) == []
    function_node.native_core(False)
    for i in range(4):
        x = Variable(_arr(6, 5, seed=i))
        w = Variable(_arr(4, 5, seed=10 + i))
        loss = F.sum(F.tanh(F.linear(x, w)))
        loss.backward()
        assert results[i][0] == loss.array.item()
        assert _same(results[i][1], x.grad) and _same(results[i][2], w.grad)


def test_no_references_leak():
    x, y = Variable(X), Variable(Y)
    w, b = Variable(W), Variable(B)

    def step():
        loss = F.sum(F.relu(F.linear(x * y + X, w, b)))
        loss.backward()
        with cpuframe.no_backprop_mode():
            F.sigmoid(x)
        try:
            _Custom().apply((X.astype(numpy.int32),))
        except type_check.InvalidType:
            pass

    for _ in range(20):
        step()
    gc.collect()
    before = (len(gc.get_objects()), sys.getrefcount(X), sys.getrefcount(W))
    for _ in range(200):
        step()
    gc.collect()
    after = (len(gc.get_objects()), sys.getrefcount(X), sys.getrefcount(W))
    assert after[1:] == before[1:]
    assert after[0] - before[0] < 50, (before, after)


def test_static_graph_records_through_the_python_core():
    class MLP(cpuframe.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l1 = cpuframe.links.Linear(4, 5)

        @cpuframe.static_graph
        def forward(self, x):
            return F.relu(self.l1(x))

    model = MLP()
    x = _arr(3, 4)
    ys = [model(x).array.copy() for _ in range(4)]
    assert all(_same(ys[0], y) for y in ys[1:])
    assert threading.current_thread() is threading.main_thread()
    assert config.enable_backprop


def test_the_environment_variable_runs_the_python_core():
    import subprocess
    code = ('import cpuframe, numpy\n'
            'from cpuframe import function_node as fn\n'
            'x = cpuframe.Variable(numpy.arange(6, dtype=numpy.float32))\n'
            'y = cpuframe.functions.sum(x * x)\n'
            'y.backward()\n'
            'print(fn.native_core(), y.array.item(), x.grad.tolist())\n'
            'cpuframe.print_runtime_info()\n')
    env = dict(__import__('os').environ, CPUFRAME_NATIVE_CORE='0')
    out = subprocess.run([sys.executable, '-c', code], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    first, *rest = out.stdout.splitlines()
    assert first == 'False 55.0 [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]'
    assert 'native core:    off (the Python core: CPUFRAME_NATIVE_CORE=0)' \
        in rest


@pytest.mark.parametrize('opt_name', ['SGD', 'MomentumSGD', 'Adam'])
def test_a_loss_scale_left_by_a_pre_hook_is_divided_out(opt_name):
    """Variable keeps ``_loss_scale`` in a slot: the optimizers' direct
    steps must still see it (a 'pre' hook's backward(loss_scale=8) leaves a
    scaled gradient there) and take the general step, which divides."""
    def run(scaled):
        link = cpuframe.links.Linear(3, 2, initialW=_arr(2, 3, seed=12),
                                     initial_bias=_arr(2, seed=13))
        opt = getattr(cpuframe.optimizers, opt_name)().setup(link)
        x = _arr(4, 3, seed=14)

        def pre(optimizer):
            link.cleargrads()
            loss = F.sum(link(x) * link(x))
            loss.backward(loss_scale=8.0 if scaled else None)
            if scaled:
                assert link.W._loss_scale == 8.0
        pre.timing = 'pre'
        opt.add_hook(pre, name='pre_backward', timing='pre')
        for _ in range(2):
            opt.update()
        return link.W.array.copy(), link.b.array.copy()
    for a, b in zip(run(True), run(False)):
        numpy.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


class _Asked(FunctionNode):
    """A node with a route whose rules count their calls (a stateful rule
    sees the same sequence of questions under both cores)."""

    def __init__(self, log, profitable=True, supports=True):
        self.log, self.profitable, self.supports = log, profitable, supports

    def forward(self, inputs):
        self.log.append('forward')
        return inputs[0] * 2,

    def forward_intel64(self, inputs):
        self.log.append('forward_intel64')
        return inputs[0] * 2,

    def intel64_profitable(self, inputs):
        self.log.append('profitable')
        if self.profitable == 'raise':
            raise ValueError('no rule for this')
        return self.profitable

    def intel64_supports(self, inputs):
        self.log.append('supports')
        return self.supports

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] * 2,


class _OwnChoice(_Asked):
    def _choose_off_device(self, inputs, mode):
        self.log.append('own choice')
        return False

    def _choose_on_device(self, inputs, mode):
        self.log.append('own choice')
        return False


class _OwnRule(_Asked):
    """A class's own ``intel64_on_device`` (as ReLUGrad's), counted."""
    on_device = False

    def intel64_on_device(self, inputs):
        self.log.append(('on device', self.on_device))
        return self.on_device


class _OwnRuleOn(_OwnRule):
    on_device = 1   # (a true value other than True)


@pytest.mark.parametrize('cls', [_Asked, _OwnChoice, _OwnRule, _OwnRuleOn])
@pytest.mark.parametrize('profitable', [True, False, 'raise'])
@pytest.mark.parametrize('mode', ['never', 'auto', 'always'])
@pytest.mark.parametrize('device', [False, True])
def test_the_route_questions_are_asked_as_by_the_python_core(
        cls, profitable, mode, device):
    # (the native module loaded before either core runs: the Python
    # method's choice reads whether it is, function_node._forward_routed)
    intel64.is_ideep_available()
    if (device or mode == 'always') and not intel64.is_ideep_available():
        pytest.skip('no native module')

    def scenario():
        log = []
        x = intel64.from_numpy(X) if device else X
        with using_config('use_ideep', mode):
            y, = cls(log, profitable).apply((Variable(x),))
            # (a kept choice: the Python method, the rule asked once)
            node = cls(log, profitable)
            node.choose_intel64((x,))
            y2, = node.apply((Variable(x),))
        return log, numpy.asarray(y.array).tolist(), type(y.array).__name__, \
            numpy.asarray(y2.array).tolist()
    _assert_same(scenario)


class _CpuOnly(FunctionNode):
    """Chainer's other way: ``forward_cpu``, the default ``forward``."""

    def forward_cpu(self, inputs):
        return inputs[0] * 3,


@pytest.mark.parametrize('make', [
    lambda: F.tanh(Variable(X)).creator_node, _CpuOnly])
def test_an_instance_s_own_forward_is_called(make):
    def scenario():
        plain = make()
        y0, = plain.apply((Variable(Y),))
        node = make()
        node.forward = lambda inputs: (inputs[0] + 100,)
        y, = node.apply((Variable(Y),))
        return y0.array.tolist(), y.array.tolist()
    native = _assert_same(scenario)
    numpy.testing.assert_array_equal(native[1][1], Y + 100)


# -- the backward walk (cpuframe._core.backprop against
# variable._backprop_python) ----------------------------------------------

class _Spy(FunctionNode):
    """Records each backward call: which node, the targets, the donation
    flags it was told and the gradients' sums. ``outputs`` outputs;
    ``how``: 'arrays' (backward_arrays), 'variables' (backward only),
    'declines' (backward_arrays says NotImplemented), 'count' or 'shape'
    (a wrong result), 'nan' (a NaN gradient)."""
    accepts_donated_grads = True

    def __init__(self, log, tag, outputs=1, how='arrays'):
        self.log, self.tag, self.n_out, self.how = log, tag, outputs, how

    def forward(self, inputs):
        return tuple(inputs[0] * (1.5 + k) for k in range(self.n_out))

    def _grads(self, targets, gys, xp):
        g = sum(gy * (1.5 + k) for k, gy in enumerate(gys))
        if self.how == 'nan':
            g = g * xp.float32('nan')
        if self.how == 'shape':
            return [g[:1] for _ in targets]
        if self.how == 'count':
            return [g for _ in targets] + [g]
        return [g if i == 0 else g * 0 for i in targets]

    def backward_arrays(self, targets, gys):
        self.log.append((self.tag, 'arrays', tuple(targets),
                         tuple(self.donated_grad_outputs),
                         [round(float(g.sum()), 4) for g in gys]))
        if self.how == 'declines':
            return NotImplemented
        return self._grads(targets, gys, numpy)

    def backward(self, targets, gys):
        self.log.append((self.tag, 'variables', tuple(targets),
                         [round(float(g.array.sum()), 4) for g in gys]))
        return [None if g is None else Variable(g) for g in
                self._grads(targets, [g.array for g in gys], numpy)]


class _SpyVariables(_Spy):
    backward_arrays = None


class _SpyAccumulates(_Spy):
    backward_arrays = _Spy.backward_arrays   # (kept: it is given a sum)

    def backward_accumulate(self, targets, gys, grad_inputs):
        self.log.append((self.tag, 'accumulate', tuple(targets),
                         [g is not None for g in grad_inputs]))
        return super().backward_accumulate(targets, gys, grad_inputs)


def _walk(build, leaves=None, retain=False, native_walks=True):
    """A scenario: ``build(log)`` -> loss (or a tuple (loss, extra)); the
    log, the leaves' gradients, the walk's state after it, and whether the
    walk that ran is the expected one (``native_walks``: under the native
    core the Python walk does not run)."""
    def scenario():
        log = []
        out = build(log)
        loss, extra = out if isinstance(out, tuple) else (out, None)
        xs = leaves or ()
        for x in xs:
            x.cleargrad()
        python_walks = []
        real = cpuframe.variable._backprop_python
        cpuframe.variable._backprop_python = \
            lambda *a: python_walks.append(1) or real(*a)
        try:
            loss.backward(retain_grad=retain)
        finally:
            cpuframe.variable._backprop_python = real
        native = function_node.native_core() and native_walks
        return (log, [None if x.grad is None else x.grad.tolist()
                      for x in xs], extra, config.enable_backprop,
                cpuframe.variable.backward_state.untracked,
                native == (not python_walks))
    return scenario


def test_the_walk_is_installed_and_switchable():
    walk = cpuframe.variable._native_backprop
    assert walk[0] is cpuframe._core.backprop
    function_node.native_core(False)
    assert walk[0] is None
    function_node.native_core(True)
    assert walk[0] is cpuframe._core.backprop
    # (what it declines before any work: the Python walk runs)
    with using_config('lazy_grad_sum', True):
        assert cpuframe._core.backprop([], []) is NotImplemented


XW = Variable(X)


def _diamond(log):
    # x -> a -> (b, c) -> b + c, with rank ties and a fan-in sum
    a, = _Spy(log, 'a').apply((XW,))
    b, = _Spy(log, 'b').apply((a,))
    c, = _Spy(log, 'c').apply((a,))
    d, = _Spy(log, 'd').apply((F.relu(b) + c * c,))
    return F.sum(d)


def test_order_donation_and_sums_are_the_python_walk_s():
    native = _assert_same(_walk(_diamond, [XW]))
    log = native[1][0]
    assert [e[0] for e in log] == ['d', 'c', 'b', 'a'] or \
        [e[0] for e in log] == ['d', 'b', 'c', 'a']
    flags = [f for e in log for f in e[3]]
    # (the sum's broadcast gradient is not donated; a fresh one is)
    assert True in flags and False in flags, log


def test_several_outputs_unused_and_gone_are_the_python_walk_s():
    def build(log):
        y0, y1, y2 = _Spy(log, 'three', outputs=3).apply((XW,))
        del y2  # (its node is gone: a zero gradient)
        # (y1 lives, unused: a zero gradient)
        return F.sum(y0 * 2), y1.shape
    native = _assert_same(_walk(build, [XW]))
    assert native[1][0][0][4][1:] == [0.0, 0.0]


@pytest.mark.parametrize('how', ['variables', 'declines', 'accumulate',
                                 'hook'])
def test_a_node_off_the_common_case_is_the_python_walk_s(how):
    class Seen(FunctionHook):
        name = 'Seen'

        def __init__(self, log):
            self.log = log

        def backward_preprocess(self, function, in_data, out_grad):
            self.log.append(('pre', type(function).__name__,
                             [round(float(g.sum()), 4) for g in out_grad]))

    def build(log):
        a, = _Spy(log, 'a').apply((XW,))
        if how == 'variables':
            node = _SpyVariables(log, 'mid')
        elif how == 'accumulate':
            node = _SpyAccumulates(log, 'mid')
        else:
            node = _Spy(log, 'mid', how='declines' if how == 'declines'
                        else 'arrays')
        if how == 'hook':
            node.add_hook(Seen(log))
        b, = node.apply((a,))
        # (a second use of a: an accumulating node is given a sum)
        return F.sum(_Spy(log, 'top').apply((b * a,))[0])
    native = _assert_same(_walk(build, [XW]))
    assert any(e[0] == 'mid' for e in native[1][0])


@pytest.mark.parametrize('how', ['count', 'shape', 'nan'])
def test_a_wrong_gradient_is_reported_as_by_the_python_walk(how):
    def scenario():
        log = []
        y, = _Spy(log, 'bad', how=how).apply((XW,))
        loss = F.sum(y)
        try:
            with using_config('debug', how == 'nan'):
                loss.backward()
        finally:
            # (the walk's state is restored whatever happened)
            assert config.enable_backprop is True
            assert cpuframe.variable.backward_state.untracked is False
    native = _assert_same(scenario)
    assert native[0] == 'raised' and native[1] in (ValueError, RuntimeError)
    assert '_Spy' in native[2]


class _Pass(FunctionNode):
    def forward(self, inputs):
        return inputs[0].copy(),

    def backward_arrays(self, targets, gys):
        return [gys[0]]


def test_a_seed_that_passes_through_is_the_leaf_s_array():
    def scenario():
        x = Variable(X)
        y, = _Pass().apply((x,))
        y.grad = Y.copy()
        seed = y.grad_var
        y.backward()
        return x.grad.tolist(), x.grad_var is seed, \
            x.grad_var.array is seed.array
    native = _assert_same(scenario)
    # (the seed's array itself: no copy on the way)
    assert native[1][2] is True


@pytest.mark.parametrize('setting', ['lazy', 'retain', 'arrays off'])
def test_what_the_native_walk_declines_runs_in_python(setting, monkeypatch):
    if setting == 'arrays off':
        monkeypatch.setattr(cpuframe.variable, 'backward_arrays_enabled',
                            [False])
    called = []
    real = cpuframe.variable._backprop_python
    monkeypatch.setattr(cpuframe.variable, '_backprop_python',
                        lambda *a: called.append(1) or real(*a))
    with using_config('lazy_grad_sum', setting == 'lazy'):
        _assert_same(_walk(_diamond, [XW], retain=setting == 'retain',
                           native_walks=False))
    # (the native run declined, and the Python run walked)
    assert len(called) == 2


def test_the_walk_under_mixed_bf16_is_the_python_walk_s():
    w = Variable(W)

    def build(log):
        with using_config('dtype', cpuframe.mixed_bf16):
            h = F.linear(XW, w)
        return F.sum(F.tanh(h) * h)
    _assert_same(_walk(build, [XW, w]))


class _Keeps(_Spy):
    """A spy that keeps weak references to the gradients it is given."""

    def backward_arrays(self, targets, gys):
        self.log.extend(weakref.ref(g) for g in gys)
        return super().backward_arrays(targets, gys)


@pytest.mark.parametrize('how', ['arrays', 'count'])
def test_the_walk_leaks_nothing(how):
    x = Variable(X)

    def step():
        log = []
        y0, y1 = _Keeps(log, 's', outputs=2, how=how).apply((x,))
        a, b = F.split_axis(y0 + y1, 2, axis=1)
        h = _SpyVariables(log, 'v').apply((a,))[0]
        c = _Keeps(log, 'k').apply((h * b,))[0]
        loss = F.sum(c) + F.sum(F.relu(y0))
        try:
            loss.backward()
        except ValueError:
            assert how == 'count'
        return [r for r in log if isinstance(r, weakref.ref)]

    for _ in range(20):
        step()
    gc.collect()
    before = len(gc.get_objects())
    for _ in range(200):
        refs = step()
        # (every gradient array the walk handed over is gone with it)
        assert refs and all(r() is None for r in refs)
    gc.collect()
    assert len(gc.get_objects()) - before < 50


def test_a_fresh_process_s_walk_calls_what_the_python_walk_calls():
    # (a node off the common case in a process where no Python walk ran
    # before: the same functions run, the same hooks see them)
    import subprocess
    code = (
        'import numpy, cpuframe, cpuframe.functions as F\n'
        'from cpuframe import FunctionHook, FunctionNode, Variable, '
        'function_node\n'
        'class Old(FunctionNode):\n'
        '    def forward(self, inputs):\n'
        '        return inputs[0] * 2,\n'
        '    def backward(self, targets, gys):\n'
        '        return gys[0] * 2,\n'
        'class Log(FunctionHook):\n'
        '    name = "Log"\n'
        '    def __init__(self): self.seen = []\n'
        '    def forward_preprocess(self, f, in_data):\n'
        '        self.seen.append(type(f).__name__)\n'
        'logs = []\n'
        'for native in (True, False):\n'
        '    function_node.native_core(native)\n'
        '    x = Variable(numpy.ones(3, numpy.float32))\n'
        '    h = F.tanh(x)\n'
        '    y, = Old().apply((h,))\n'
        '    loss = F.sum(y) + F.sum(F.sin(F.sin(h)))\n'
        '    with Log() as log:\n'
        '        loss.backward()\n'
        '    logs.append((log.seen, x.grad.tolist()))\n'
        'assert logs[0] == logs[1], logs\n'
        'print("same", logs[0][0])\n')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert 'same' in out.stdout


def test_an_instance_s_own_call_backward_is_called():
    def scenario():
        log = []
        y, = _Spy(log, 'own').apply((XW,))
        node = y.creator_node
        real = node._call_backward
        node._call_backward = lambda *a: log.append('own') or real(*a)
        loss = F.sum(y)
        loss.backward()
        return log
    native = _assert_same(scenario)
    assert 'own' in native[1]


def test_an_accumulating_linear_given_a_sum_is_the_python_walk_s():
    w = Variable(W)

    def build(log):
        h = F.relu(XW)
        # (h's deeper consumer runs first: Linear is given a sum)
        return F.sum(F.linear(h, w)) + F.sum(F.tanh(F.tanh(h)))
    _assert_same(_walk(build, [XW, w]))


@pytest.mark.parametrize('case', ['shared', 'read-only', 'accumulated',
                                  'loss scale', 'parameters'])
def test_the_leaves_gradients_are_set_as_by_the_python_core(case):
    def scenario():
        Leaf = cpuframe.Parameter if case == 'parameters' else Variable
        a, b = Leaf(X.copy()), Leaf(Y.copy())
        if case == 'accumulated':
            a.grad = numpy.full_like(X, 0.5)
            held = a.grad_var
        if case == 'read-only':
            loss = F.sum(a) + F.sum(b * 2)   # (broadcast views come back)
        else:
            loss = F.sum(F.tanh(a + b))      # (one array for both leaves)
        loss.backward(loss_scale=4.0 if case == 'loss scale' else None)
        return ([v.grad.tolist() for v in (a, b)],
                [v.grad.flags.writeable for v in (a, b)],
                a.grad is b.grad,
                numpy.shares_memory(a.grad, b.grad),
                [v._loss_scale for v in (a, b)],
                case != 'accumulated' or a.grad_var is not held)
    native = _assert_same(scenario)
    grads, writeable, same, shared = native[1][:4]
    assert writeable == [True, True] and not same and not shared


class _Answer:
    """A non-bool answer of ``intel64_on_device`` whose truth tests log."""

    def __init__(self, log, value):
        self.log, self.value = log, value

    def __bool__(self):
        self.log.append(('truth', self.value))
        return self.value


class _RuleWrites(FunctionNode):
    """An own ``intel64_on_device`` (``answer``: False, True, 'falsy',
    'truthy' (an _Answer) or 'raise'); every write of the route's
    attributes logged."""

    def __init__(self, log, answer):
        self.log, self.answer = log, answer

    def __setattr__(self, name, value):
        if name in ('_forward_dtype', '_bf16_forward', '_plain_inputs'):
            self.log.append(('set', name, str(value)))
        object.__setattr__(self, name, value)

    def intel64_on_device(self, inputs):
        self.log.append('on device?')
        if self.answer == 'raise':
            raise ValueError('no rule')
        if isinstance(self.answer, str):
            return _Answer(self.log, self.answer == 'truthy')
        return self.answer

    def forward(self, inputs):
        self.log.append('forward')
        return inputs[0] * 2,

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] * 2,


class _RuleWritesRoute(_RuleWrites):
    def forward_intel64(self, inputs):
        self.log.append('forward_intel64')
        return inputs[0] * 2,

    def intel64_profitable(self, inputs):
        self.log.append('profitable')
        return False


@pytest.mark.parametrize('answer', [False, True, 'falsy', 'truthy',
                                    'raise'])
@pytest.mark.parametrize('cls', [_RuleWrites, _RuleWritesRoute])
@pytest.mark.parametrize('mode', ['never', 'auto'])
def test_a_class_s_own_device_rule_is_asked_as_by_the_python_core(
        answer, cls, mode):
    intel64.is_ideep_available()
    code = FunctionNode._forward_routed.__code__

    def scenario():
        log, python_calls = [], []

        def profile(frame, event, arg):
            if event == 'call' and frame.f_code is code:
                python_calls.append(1)
        with using_config('use_ideep', mode):
            sys.setprofile(profile)
            try:
                y, = cls(log, answer).apply((Variable(X),))
            finally:
                sys.setprofile(None)
        # (the C path takes an exact False, and an exact True as it takes
        # device arrays; the Python core always the method)
        expected = 0 if function_node.native_core() and (
            answer is False or (answer is True and
                                intel64.is_ideep_available())) else 1
        return log, y.array.tolist(), len(python_calls) == expected
    native = _assert_same(scenario)
    if answer != 'raise':
        # (without the oneDNN module the general choice asks the rule
        # again, in both cores)
        if intel64.is_ideep_available() or answer in (False, 'falsy'):
            assert native[1][0].count('on device?') == 1
        assert native[1][2] is True


# -- size rules as data (intel64.size_rule): read by the native core --------

def _size_rule_codes():
    from cpuframe.backends.intel64 import _routing
    return {fn.__code__ for fn in _routing.SIZE_RULES}


def _count_rule_calls(fn):
    """``fn()`` and how many times a size_rule function's code ran."""
    codes, calls = _size_rule_codes(), []

    def profile(frame, event, arg):
        if event == 'call' and frame.f_code in codes:
            calls.append(frame.f_code.co_name)
    sys.setprofile(profile)
    try:
        result = fn()
    finally:
        sys.setprofile(None)
    return result, len(calls)


@pytest.mark.parametrize('delta', [-1, 0, 1, 0.5, -0.5])
@pytest.mark.parametrize('case', ['relu', 'sigmoid', 'linear_device',
                                  'add_device', 'rebound'])
def test_size_rules_read_as_data_answer_as_their_functions(
        case, delta, monkeypatch):
    """'auto''s size rules made by ``intel64.size_rule`` (an input's size,
    a product of axes, an attribute's size) read by the native core answer
    as their Python functions, at, below and above each threshold (a float
    one too), AUTO_MIN read at each call (an entry changed or the table
    rebound): the same routes, values and graph, the backward's nodes
    (ReLUGrad's rule reads its ``y``, the linear data gradient's the axes of
    W and gy) included; the native core calls none of the rule functions
    where they decline."""
    if not intel64.is_ideep_available():
        pytest.skip('no native module')
    from cpuframe.backends.intel64 import _routing
    x = _arr(8, 16, seed=20)
    w = _arr(4, 16, seed=21)
    on_device = case.endswith('_device')
    op, n = {
        'relu': ('relu', x.size),
        'sigmoid': ('sigmoid', x.size), 'rebound': ('tanh', x.size),
        'linear_device': ('linear_on_device', 8 * 16 * 4),
        'add_device': ('add_on_device', x.size)}[case]
    threshold = n + delta
    if case == 'rebound':
        table = dict(_routing.AUTO_MIN, tanh=threshold)
        monkeypatch.setattr(_routing, 'AUTO_MIN', table)
    else:
        monkeypatch.setitem(_routing.AUTO_MIN, op, threshold)
    chosen = []

    def scenario():
        chosen.clear()
        xa, wa = (intel64.from_numpy(x), intel64.from_numpy(w)) \
            if on_device else (x, w)
        with using_config('use_ideep', 'auto'):
            xv, wv = Variable(xa), Variable(wa)
            if case == 'relu':
                y = F.relu(xv)
            elif case == 'sigmoid':
                y = F.sigmoid(xv)
            elif case == 'rebound':
                y = F.tanh(xv)
            elif case == 'add_device':
                y = xv + Variable(intel64.from_numpy(x * 2))
            else:
                y = F.linear(xv, wv)
            loss = F.sum(y * y)
            loss.backward()
        return (_fingerprint((y,)), list(chosen),
                numpy.asarray(xv.grad).tolist(),
                None if wv.grad is None else numpy.asarray(wv.grad).tolist())
    native = _assert_same_watching_routes(scenario, chosen)
    routed = [c for name, c in native[1][1]]
    assert routed, 'the route watch was told nothing'
    # (at or above the threshold the first op takes the route, below not)
    assert routed[0] == (delta <= 0), native[1][1]
    function_node.native_core(True)
    _, native_calls = _count_rule_calls(scenario)
    function_node.native_core(False)
    _, python_calls = _count_rule_calls(scenario)
    # (where the rule approves, the rest of the choice, Python's
    # _choose_off_device_rest, asks it again, as in the Python core)
    assert native_calls < python_calls, (native_calls, python_calls)
    if delta > 0:
        assert native_calls == 0, native_calls


class _RuleByAttribute(FunctionNode):
    """A node whose size rule reads an attribute (None: the rule raises)."""

    intel64_profitable = intel64.size_rule('relu', 'ref')

    def __init__(self, ref):
        self.ref = ref

    def forward(self, inputs):
        return inputs[0] + 1,

    def intel64_supports(self, inputs):
        return True

    def forward_intel64(self, inputs):
        return inputs[0] + 2,

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0],


class _RuleOverridden(_RuleByAttribute):
    def intel64_profitable(self, inputs):
        return inputs[0].size > 3


@pytest.mark.parametrize('how', ['attribute', 'missing', 'instance',
                                 'subclass', 'key'])
def test_size_rules_the_data_does_not_cover_are_called_as_functions(
        how, monkeypatch):
    """An attribute that is not an array (the rule's own error), an
    instance's own rule, a subclass's method, a threshold missing from
    AUTO_MIN: the Python function answers (or raises), as without the
    native core; an attribute that is an array is read as data."""
    if not intel64.is_ideep_available():
        pytest.skip('no native module (the route is never asked for)')
    from cpuframe.backends.intel64 import _routing
    x = _arr(2, 3, seed=22)
    if how == 'key':
        monkeypatch.delitem(_routing.AUTO_MIN, 'relu')

    def scenario():
        with using_config('use_ideep', 'auto'):
            if how == 'subclass':
                node = _RuleOverridden(x)
            else:
                node = _RuleByAttribute(
                    None if how == 'missing' else _arr(4, 4))
            if how == 'instance':
                node.intel64_profitable = lambda inputs: True
            y, = node.apply((Variable(x),))
        return y.array.tolist()
    native = _assert_same(scenario)
    expected = {'attribute': 'ok', 'missing': 'raised', 'instance': 'ok',
                'subclass': 'ok', 'key': 'raised'}[how]
    assert native[0] == expected, native


def test_size_rule_functions_answer_as_auto_profitable():
    from cpuframe.backends.intel64 import _routing
    x, w = _arr(8, 16), _arr(4, 16)

    class Node:
        y = x
    for threshold in (127, 128, 129):
        with pytest.MonkeyPatch.context() as mp:
            mp.setitem(_routing.AUTO_MIN, 'relu', threshold)
            mp.setitem(_routing.AUTO_MIN, 'linear_on_device', threshold * 4)
            expect = _routing.auto_profitable('relu', x)
            assert intel64.size_rule('relu', 0)(None, (x,)) is expect
            assert intel64.size_rule('relu', 'y')(Node, (w,)) is expect
            assert intel64.size_rule('linear_on_device', (0, 0), (0, 1),
                                     (1, 0))(None, (x, w)) is \
                _routing.auto_profitable('linear_on_device', 8 * 16 * 4)
    assert intel64.size_rule(None)(None, (x,)) is False
    for bad in ((1.0,), ((0,),), ((0, 1, 2),), (True,)):
        with pytest.raises(TypeError, match='size_rule: each factor'):
            intel64.size_rule('relu', *bad)
    with pytest.raises(TypeError, match='takes no factors'):
        intel64.size_rule(None, 0)


def test_plain_arrays_without_the_onednn_module(monkeypatch):
    """A class's own device rule may put NumPy arrays on the device where
    the oneDNN module is not loaded (no mdarray exists): their NumPy path
    reads them as they are (it raised AttributeError)."""
    x = _arr(2, 3)
    monkeypatch.setattr(intel64, 'native', lambda: None)
    out = function_node._plain_arrays((x, None))
    assert out[0] is x and out[1] is None
