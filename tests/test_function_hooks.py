"""Function hooks: registration, call order, what the hooks see, and the
hooks of ``cpuframe.function_hooks`` (TimerHook, PrintHook, ...)."""
import io
import threading
import types
import warnings

import numpy
import pytest
from testhelpers.hooks import MLP, FakeClock

import cpuframe
import cpuframe.functions as F
import cpuframe.links as L
from cpuframe import compat, function_hooks
from cpuframe.backends import cuda
from cpuframe.function_hook import FunctionHook, get_function_hooks
from cpuframe.function_hooks import timer as timer_module


class Recorder(FunctionHook):
    """Appends ``(hook name, event, label)`` to a shared log."""

    def __init__(self, log, name='Recorder'):
        self.log = log
        self.name = name
        self.seen = []

    def added(self, function=None):
        self.log.append((self.name, 'added', function))

    def deleted(self, function=None):
        self.log.append((self.name, 'deleted', function))

    def forward_preprocess(self, function, in_data):
        self.log.append((self.name, 'fpre', function.label))
        self.seen.append(('fpre', function, in_data))

    def forward_postprocess(self, function, in_data):
        self.log.append((self.name, 'fpost', function.label))
        self.seen.append(('fpost', function, in_data))

    def backward_preprocess(self, function, in_data, out_grad):
        self.log.append((self.name, 'bpre', function.label))
        self.seen.append(('bpre', function, in_data, out_grad))

    def backward_postprocess(self, function, in_data, out_grad):
        self.log.append((self.name, 'bpost', function.label))
        self.seen.append(('bpost', function, in_data, out_grad))


class Scale2(cpuframe.FunctionNode):
    """y = 2 * x0 * x1, differentiable in x1 only (x0 alone is retained);
    logs its forward and backward."""

    def __init__(self, log):
        self.log = log

    def forward(self, inputs):
        self.log.append(('forward', self.label))
        self.retain_inputs((0,))
        return 2 * inputs[0] * inputs[1],

    def backward(self, indexes, grad_outputs):
        self.log.append(('backward', self.label))
        x0, = self.get_retained_inputs()
        gy, = grad_outputs
        return None, 2 * x0 * gy


@pytest.fixture(autouse=True)
def _no_leftover_hooks():
    yield
    assert not get_function_hooks(), 'a test left a global hook registered'


def _arrays(seed=0):
    rng = numpy.random.RandomState(seed)
    return (rng.uniform(-1, 1, (2, 3)).astype(numpy.float32),
            rng.uniform(-1, 1, (2, 3)).astype(numpy.float32))


def test_global_registration_with_statement():
    log = []
    hook = Recorder(log)
    with hook as h:
        assert h is hook
        assert list(get_function_hooks().items()) == [('Recorder', hook)]
        assert cpuframe.get_function_hooks() is get_function_hooks()
    assert not get_function_hooks()
    assert log == [('Recorder', 'added', None), ('Recorder', 'deleted', None)]


def test_unregistered_when_the_block_raises():
    hook = Recorder([])
    with pytest.raises(RuntimeError, match='boom'):
        with hook:
            raise RuntimeError('boom')
    assert not get_function_hooks()


def test_duplicate_global_name_raises():
    log = []
    with Recorder(log):
        with pytest.raises(KeyError, match='already registered'):
            with Recorder(log):
                pass
        # the first one stays registered
        assert 'Recorder' in get_function_hooks()
    assert not get_function_hooks()


def test_forward_hooks_order_and_arrays():
    log = []
    x0, x1 = _arrays()
    node = Scale2(log)
    local = Recorder(log, name='local')
    node.add_hook(local)
    assert list(node.local_function_hooks) == ['local']
    with Recorder(log, name='global') as g:
        y, = node.apply((cpuframe.Variable(x0), x1))
    numpy.testing.assert_allclose(y.array, 2 * x0 * x1)
    events = [e for e in log if e[1] not in ('added', 'deleted')]
    assert events == [
        ('global', 'fpre', 'Scale2'), ('local', 'fpre', 'Scale2'),
        ('forward', 'Scale2'),
        ('global', 'fpost', 'Scale2'), ('local', 'fpost', 'Scale2')]
    kind, function, in_data = g.seen[0]
    assert function is node
    assert in_data[0] is x0 and in_data[1] is x1


def test_local_hook_replaces_global_of_same_name():
    log = []
    x0, x1 = _arrays()
    node = Scale2(log)
    local = Recorder(log, name='same')
    node.add_hook(local)
    with Recorder(log, name='same') as g:
        node.apply((x0, x1))
    assert g.seen == []
    assert [s[0] for s in local.seen] == ['fpre', 'fpost']


def test_add_and_delete_hook_on_node():
    log = []
    node = Scale2(log)
    hook = Recorder(log)
    node.add_hook(hook)
    node.add_hook(hook, name='other')
    assert list(node.local_function_hooks) == ['Recorder', 'other']
    with pytest.raises(KeyError, match='already registered'):
        node.add_hook(hook)
    node.delete_hook('other')
    assert list(node.local_function_hooks) == ['Recorder']
    with pytest.raises(KeyError, match='no hook named'):
        node.delete_hook('other')
    with pytest.raises(TypeError, match='expected a FunctionHook'):
        node.add_hook(object())
    # the hook is told each time (its own name is 'Recorder')
    assert log == [('Recorder', 'added', node), ('Recorder', 'added', node),
                   ('Recorder', 'deleted', node)]


def test_backward_hooks_see_retained_inputs_and_output_gradients():
    log = []
    x0, x1 = _arrays()
    gy = numpy.full((2, 3), 0.5, numpy.float32)
    v0, v1 = cpuframe.Variable(x0), cpuframe.Variable(x1)
    node = Scale2(log)
    y, = node.apply((v0, v1))
    hook = Recorder(log)
    with hook:
        y.grad = gy
        y.backward()
    backward = [s for s in hook.seen if s[0] in ('bpre', 'bpost')
                and s[1] is node]
    assert [s[0] for s in backward] == ['bpre', 'bpost']
    for _, _, in_data, out_grad in backward:
        assert isinstance(in_data, tuple) and isinstance(out_grad, tuple)
        numpy.testing.assert_array_equal(in_data[0], x0)
        assert in_data[1] is None      # not retained by Scale2
        assert len(out_grad) == 1
        numpy.testing.assert_array_equal(out_grad[0], gy)
    # the node's backward runs between its pre and post hooks
    i_pre = log.index(('Recorder', 'bpre', 'Scale2'))
    i_back = log.index(('backward', 'Scale2'))
    i_post = log.index(('Recorder', 'bpost', 'Scale2'))
    assert i_pre < i_back < i_post
    numpy.testing.assert_allclose(v1.grad, 2 * x0 * gy)


def test_backward_hooks_see_the_gradient_of_each_function():
    x = numpy.array([[1.0, -2.0, 3.0]], numpy.float32)
    v = cpuframe.Variable(x)
    hook = Recorder([])
    with hook:
        y = F.sum(F.relu(v) * 3)
        y.backward()
    grads = {s[1].label: s[3] for s in hook.seen if s[0] == 'bpre'}
    numpy.testing.assert_array_equal(grads['Sum'][0], numpy.float32(1))
    # the gradient reaching ReLU is that of its output: 3 everywhere
    relu_grad = [s[3] for s in hook.seen
                 if s[0] == 'bpre' and type(s[1]).__name__ == 'ReLU']
    assert len(relu_grad) == 1
    numpy.testing.assert_array_equal(relu_grad[0][0], numpy.full((1, 3), 3))
    numpy.testing.assert_array_equal(v.grad, [[3, 0, 3]])


class OldStyleSquare(cpuframe.Function):
    def forward(self, inputs):
        return inputs[0] ** 2,

    def backward(self, inputs, grad_outputs):
        return 2 * inputs[0] * grad_outputs[0],


def test_old_style_function_hooks():
    log = []
    f = OldStyleSquare()
    hook = Recorder(log)
    f.add_hook(hook)
    assert list(f.local_function_hooks) == ['Recorder']
    x = cpuframe.Variable(numpy.array([1.0, 2.0], numpy.float32))
    y = f(x)
    F.sum(y).backward()
    assert [e[1] for e in log if e[2] == 'OldStyleSquare'] == [
        'fpre', 'fpost', 'bpre', 'bpost']
    bpre = [s for s in hook.seen if s[0] == 'bpre'][0]
    numpy.testing.assert_array_equal(bpre[2][0], x.array)   # retained
    f.delete_hook('Recorder')
    assert not f.local_function_hooks


def test_global_hooks_are_per_thread():
    log = []
    seen_in_thread = []
    x0, _ = _arrays()

    def work():
        seen_in_thread.append(dict(get_function_hooks()))
        F.relu(x0)

    with Recorder(log):
        t = threading.Thread(target=work)
        t.start()
        t.join()
    assert seen_in_thread == [{}]
    assert not [e for e in log if e[1] == 'fpre']


def test_no_hook_costs_no_tuple():
    # The fast path: with nothing registered there is nothing to call.
    node = Scale2([])
    assert node._function_hooks() == ()


# -- TimerHook ----------------------------------------------------------------

def test_timer_hook_counts_forward_and_backward_of_an_mlp():
    x, _ = _arrays()
    model = MLP()
    with function_hooks.TimerHook() as hook:
        loss = F.sum(model(x))
        loss.backward()
    summary = hook.summary()
    # each function: once in forward, once in backward
    assert summary['LinearFunction']['occurrence'] == 4
    assert summary['ReLU']['occurrence'] == 2
    names = [name for name, _ in hook.call_history]
    assert names[:4] == ['LinearFunction', 'ReLU', 'LinearFunction', 'Sum']
    for record in summary.values():
        assert record['elapsed_time'] >= 0
    assert sum(r['occurrence'] for r in summary.values()) == \
        len(hook.call_history)
    assert 0 < hook.total_time() <= sum(t for _, t in hook.call_history)


def _fake_function(name):
    return type(name, (cpuframe.FunctionNode,), {})()


def test_timer_hook_nested_calls_and_total(monkeypatch):
    # outer starts at 0, inner runs 1..3, outer ends at 10; a second
    # outer call runs 20..20.5
    monkeypatch.setattr(timer_module, 'time',
                        FakeClock([0.0, 1.0, 3.0, 10.0, 20.0, 20.5]))
    hook = function_hooks.TimerHook()
    outer, inner = _fake_function('Outer'), _fake_function('Inner')
    hook.forward_preprocess(outer, ())
    hook.backward_preprocess(inner, (None,), ())
    hook.backward_postprocess(inner, (None,), ())
    hook.forward_postprocess(outer, ())
    hook.forward_preprocess(outer, ())
    hook.forward_postprocess(outer, ())
    assert hook.call_history == [('Inner', 2.0), ('Outer', 10.0),
                                 ('Outer', 0.5)]
    assert hook.total_time() == 10.5
    assert hook.summary() == {
        'Inner': {'elapsed_time': 2.0, 'occurrence': 1},
        'Outer': {'elapsed_time': 10.5, 'occurrence': 2}}
    assert list(hook.summary()) == ['Inner', 'Outer']


def _timer_with(records, monkeypatch):
    times = []
    t = 0.0
    for _, seconds in records:
        times += [t, t + seconds]
        t += seconds + 1
    monkeypatch.setattr(timer_module, 'time', FakeClock(times))
    hook = function_hooks.TimerHook()
    for name, _ in records:
        f = _fake_function(name)
        hook.forward_preprocess(f, ())
        hook.forward_postprocess(f, ())
    return hook


@pytest.mark.parametrize('unit, lines', [
    ('auto', ['       FunctionName  ElapsedTime  Occurrence',
              '     LinearFunction      1.50sec           2',
              '               ReLU      0.25sec           1',
              'SoftmaxCrossEntropy      0.00sec           1']),
    ('auto_foreach', ['       FunctionName  ElapsedTime  Occurrence',
                      '     LinearFunction      1.50sec           2',
                      '               ReLU     250.00ms           1',
                      'SoftmaxCrossEntropy       3.00us           1']),
    ('ms', ['       FunctionName  ElapsedTime  Occurrence',
            '     LinearFunction    1500.00ms           2',
            '               ReLU     250.00ms           1',
            'SoftmaxCrossEntropy       0.00ms           1']),
])
def test_timer_hook_print_report(monkeypatch, unit, lines):
    hook = _timer_with([('LinearFunction', 1.0), ('ReLU', 0.25),
                        ('LinearFunction', 0.5),
                        ('SoftmaxCrossEntropy', 3e-6)], monkeypatch)
    out = io.StringIO()
    hook.print_report(unit=unit, file=out)
    assert out.getvalue().splitlines() == lines


def test_timer_hook_print_report_default_stdout(monkeypatch, capsys):
    hook = _timer_with([('ReLU', 2e-9)], monkeypatch)
    hook.print_report()
    assert capsys.readouterr().out.splitlines() == [
        'FunctionName  ElapsedTime  Occurrence',
        '        ReLU       2.00ns           1']


def test_timer_hook_print_report_bad_unit():
    with pytest.raises(ValueError, match="expected unit 'auto'"):
        function_hooks.TimerHook().print_report(unit='min', file=io.StringIO())


def test_timer_hook_names_old_style_function():
    with function_hooks.TimerHook() as hook:
        OldStyleSquare()(numpy.ones(2, numpy.float32))
    assert [name for name, _ in hook.call_history] == ['OldStyleSquare']


def test_timer_hook_with_link_calls():
    # A Chainer test pattern: a link's forward made of functions, all timed.
    x, _ = _arrays()
    link = L.Linear(3, 2)
    hook = function_hooks.TimerHook()
    with hook:
        link(x)
        link(x)
    assert hook.summary()['LinearFunction']['occurrence'] == 2


# -- PrintHook ----------------------------------------------------------------

def test_print_hook_forward_and_backward():
    out = io.StringIO()
    x = cpuframe.Variable(numpy.array([[1.0, -1.0, 3.0]], numpy.float32))
    with function_hooks.PrintHook(file=out):
        y = F.relu(x)
    text = out.getvalue()
    lines = text.splitlines()
    assert lines[:3] == ['function\tReLU', 'input data',
                         '<variable shape=(1, 3) dtype=float32>']
    assert '- statistics: mean={:.8f}, std={:.8f}'.format(
        float(x.array.mean()), float(x.array.std())) in lines
    out.truncate(0)
    out.seek(0)
    y.node.creator_node.add_hook(function_hooks.PrintHook(file=out))
    y.grad = numpy.full((1, 3), 2.0, numpy.float32)
    y.backward()
    lines = out.getvalue().splitlines()
    assert lines[0] == 'function\tReLU'
    assert 'output gradient' in lines
    i = lines.index('output gradient')
    assert lines[i + 1] == '<variable shape=(1, 3) dtype=float32>'
    assert '- grad: shape=(1, 3)' in lines[i + 1:]


def test_print_hook_removed_input_and_sep_deprecated():
    out = io.StringIO()
    hook = function_hooks.PrintHook(file=out, end='|')
    hook.backward_preprocess(_fake_function('F'), (None,),
                             (numpy.zeros(2, numpy.float32),))
    assert out.getvalue().startswith('function\tF|input data|(removed)|'
                                     'output gradient|')
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        function_hooks.PrintHook(sep=' ')
    assert any(issubclass(x.category, DeprecationWarning) for x in w)


def test_print_hook_default_file_is_stdout(capsys):
    with function_hooks.PrintHook():
        F.relu(numpy.ones((2,), numpy.float32))
    assert capsys.readouterr().out.startswith('function\tReLU\n')


# -- CuPy hooks ------------------------------------------------------------

@pytest.mark.skipif(cuda.available, reason='CuPy with a GPU is available')
@pytest.mark.parametrize('cls', ['CupyMemoryProfileHook', 'CUDAProfileHook'])
def test_cupy_hooks_need_cupy(cls):
    with pytest.raises(RuntimeError, match=cls + ': needs CuPy'):
        getattr(function_hooks, cls)()


def test_cupy_memory_profile_report_format():
    # The bookkeeping does not need a GPU: feed it a fake memory pool.
    cls = function_hooks.CupyMemoryProfileHook
    hook = cls.__new__(cls)
    hook.call_history = []
    hook._starts = []
    values = iter([(0, 0), (2048, 4096), (2048, 4096), (2048 + 10, 4096)])
    current = {}

    def advance():
        current['v'] = next(values)

    hook._pool = types.SimpleNamespace(
        used_bytes=lambda: current['v'][0], total_bytes=lambda: current['v'][1])
    for name in ('LinearFunction', 'ReLU'):
        f = _fake_function(name)
        advance()
        hook.forward_preprocess(f, ())
        advance()
        hook.forward_postprocess(f, ())
    assert hook.call_history == [('LinearFunction', 2048, 4096),
                                 ('ReLU', 10, 0)]
    assert hook.total_used_bytes() == 2058
    assert hook.total_acquired_bytes() == 4096
    out = io.StringIO()
    hook.print_report(file=out)
    assert out.getvalue().splitlines() == [
        '  FunctionName  UsedBytes  AcquiredBytes  Occurrence',
        'LinearFunction     2.00KB         4.00KB           1',
        '          ReLU     10.00B          0.00B           1']


# -- compat ---------------------------------------------------------------------

CHAINER_SNIPPET = '''
import numpy as np
import chainer
import chainer.functions as F
import chainer.links as L
from chainer import function_hooks

class MLP(chainer.Chain):
    def __init__(self):
        super(MLP, self).__init__()
        with self.init_scope():
            self.l1 = L.Linear(None, 5)
            self.l2 = L.Linear(5, 2)

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))

model = L.Classifier(MLP())
x = np.random.RandomState(0).normal(size=(8, 3)).astype(np.float32)
t = np.zeros(8, np.int32)
hook = function_hooks.TimerHook()
assert isinstance(hook, chainer.FunctionHook)
with hook:
    loss = model(x, t)
    model.cleargrads()
    loss.backward()
report = io.StringIO()
hook.print_report(file=report)
result = hook.summary()
'''


def test_chainer_script_with_function_hooks_through_compat():
    compat.install()
    try:
        namespace = {'io': io}
        exec(compile(CHAINER_SNIPPET, 'train.py', 'exec'), namespace)
        import chainer
        import chainer.function_hooks
        import chainer.link_hooks
        assert chainer.function_hooks is function_hooks
        assert chainer.FunctionHook is FunctionHook
        assert chainer.LinkHook is cpuframe.LinkHook
        assert chainer.link_hooks.TimerHook is cpuframe.link_hooks.TimerHook
    finally:
        compat.uninstall()
    result = namespace['result']
    assert result['LinearFunction']['occurrence'] == 4
    assert result['ReLU']['occurrence'] == 2
    assert result['SoftmaxCrossEntropy']['occurrence'] == 2
    lines = namespace['report'].getvalue().splitlines()
    assert lines[0].split() == ['FunctionName', 'ElapsedTime', 'Occurrence']
    assert len(lines) == 1 + len(result)


def test_cupy_memory_cumulative_hook_counts():
    from cpuframe.backends import cuda
    from cpuframe.function_hooks import cupy_memory_profile as m
    assert m.memory_hook_available is (m.MemoryHook is not object)
    if cuda.cupy is None:
        assert m.memory_hook_available is False
    hook = m.CupyMemoryCumulativeHook()
    assert (hook.used_bytes, hook.acquired_bytes) == (0, 0)
    hook.malloc_preprocess(device_id=0, size=3, mem_size=512)
    hook.alloc_preprocess(device_id=0, mem_size=1024)
    hook.malloc_preprocess(device_id=0, size=1, mem_size=512)
    assert (hook.used_bytes, hook.acquired_bytes) == (1024, 1024)
    assert hook.name == 'CupyMemoryCumulativeHook'
