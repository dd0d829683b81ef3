"""``FunctionNode.backward_arrays``: the backward on arrays (issue: small work).

Where nothing records the backward, the engine runs the common ops'
gradients on arrays instead of building Variables and gradient nodes
through ``apply``. It must not change a single bit: every case here runs
the same graph's backward twice, once through ``backward_arrays`` and once
through the Variable-level ``backward`` (``backward_arrays_enabled`` off),
on the NumPy path and on the '@intel64' device, with NaN, infinities and
huge values among the inputs, and compares the gradients bit for bit. The
numerical gradient checks of the functions' own tests run through it too
(it is the default).
"""
import numpy
import pytest

import cpuframe
import cpuframe.functions as F
import cpuframe.links as L
from cpuframe import FunctionHook, FunctionNode, Variable, variable
from cpuframe.backends import intel64
from cpuframe.configuration import using_config
from cpuframe.functions.activation.relu import ReLU

DEVICES = ['@numpy'] + (['@intel64'] if intel64.is_ideep_available() else [])


def _arr(*shape, seed=0, special=False, dtype=numpy.float32):
    a = numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)
    if special and a.size >= 4:
        flat = a.reshape(-1)
        flat[0], flat[1], flat[2] = numpy.nan, numpy.inf, -numpy.inf
        flat[3] = numpy.finfo(dtype).max / 4
    return a


def _labels(n, classes):
    t = numpy.random.RandomState(5).randint(0, classes, n).astype(numpy.int32)
    t[0] = -1  # ignored
    return t


# Each case: (leaf arrays, function of the leaf Variables giving the output)
def _cases(special):
    a = _arr(6, 5, special=special)
    b = _arr(6, 5, seed=1)
    row = _arr(5, seed=2)
    pos = numpy.abs(_arr(6, 5, seed=3)) + 0.5
    img = _arr(2, 3, 6, 6, seed=4, special=special)
    w_conv = _arr(4, 3, 3, 3, seed=6)
    bias4 = _arr(4, seed=7)
    w_lin = _arr(4, 5, seed=8)
    return {
        'add_broadcast': ((a, row), lambda x, r: x + r),
        'add_same': ((a, b), lambda x, y: x + y),
        'sub_broadcast': ((a, row), lambda x, r: x - r),
        'mul_broadcast': ((a, row), lambda x, r: x * r),
        'mul_same': ((a, b), lambda x, y: x * y),
        'div': ((a, pos), lambda x, y: x / y),
        'div_broadcast': ((a, row), lambda x, r: x / r),
        'neg': ((a,), lambda x: -x),
        'add_const': ((a,), lambda x: x + 2.5),
        'rsub_const': ((a,), lambda x: 2.5 - x),
        'mul_const': ((a,), lambda x: x * 3.0),
        'div_const': ((a,), lambda x: x / 4.0),
        'div_zero': ((a,), lambda x: x / 0.0),
        'tanh': ((a,), F.tanh),
        'sigmoid': ((a,), F.sigmoid),
        'relu': ((a,), F.relu),
        'relu_chain': ((a,), lambda x: F.relu(F.relu(x * 2.0) - 0.25)),
        'exp': ((a,), F.exp),
        'sum_all': ((a,), F.sum),
        'sum_axis': ((a,), lambda x: F.sum(x, axis=1)),
        'sum_keepdims': ((a,), lambda x: F.sum(x, axis=0, keepdims=True)),
        'reshape': ((a,), lambda x: F.reshape(x, (3, 10))),
        'broadcast_to': ((row,), lambda r: F.broadcast_to(r, (6, 5))),
        'sum_to': ((a,), lambda x: F.sum_to(x, (1, 5))),
        'getitem_slice': ((a,), lambda x: x[1:4, ::2]),
        'getitem_advanced': ((a,), lambda x: x[[0, 2, 2, 5]]),
        'concat': ((a, b, a[:2]), lambda x, y, z: F.concat((x, y, z), 0)),
        'concat_axis1': ((a, b), lambda x, y: F.concat((x, y), axis=1)),
        'linear': ((a, w_lin, bias4), F.linear),
        'linear_nobias': ((a, w_lin), F.linear),
        'softmax_cross_entropy': (
            (a,), lambda x: F.softmax_cross_entropy(x, _labels(6, 5))),
        'softmax_cross_entropy_no_reduce': (
            (a,), lambda x: F.softmax_cross_entropy(x, _labels(6, 5),
                                                    reduce='no')),
        'mean_squared_error': ((a, b), F.mean_squared_error),
        'convolution_2d': (
            (img, w_conv, bias4),
            lambda x, w, c: F.convolution_2d(x, w, c, stride=2, pad=1)),
        'convolution_2d_nobias': (
            (img, w_conv), lambda x, w: F.convolution_2d(x, w, pad=1)),
        'max_pooling_2d': ((img,), lambda x: F.max_pooling_2d(x, 3, 2)),
        'average_pooling_2d': ((img,),
                               lambda x: F.average_pooling_2d(x, 2)),
        'lstm': ((_arr(3, 4, seed=9), _arr(3, 16, seed=10)),
                 lambda c, x: F.lstm(c, x)[1] * 2.0 + F.lstm(c, x)[0]),
        # a Variable used twice: its gradients are summed (MultiAdd)
        'used_twice': ((a, b), lambda x, y: F.tanh(x) * y + x * y),
    }


def _to_numpy(a):
    return cpuframe.backend.CpuDevice().send(a)


_ran = []  # the classes whose backward_arrays ran


def _grads(leaves, fn, device, arrays_on):
    variable.backward_arrays_enabled[0] = arrays_on
    real = FunctionNode._call_backward_arrays_now

    def spy(node, targets, grad_outputs):
        _ran.append(type(node).__name__)
        return real(node, targets, grad_outputs)
    FunctionNode._call_backward_arrays_now = spy
    del _ran[:]
    try:
        xs = [Variable(device.send(a.copy())) for a in leaves]
        y = fn(*xs)
        if isinstance(y, tuple):
            y = y[0]
        y.grad = device.send(_arr(*y.shape, seed=11, dtype=y.dtype)
                             if y.shape else numpy.array(0.75, y.dtype))
        y.backward()
        return [None if x.grad is None else _to_numpy(x.grad) for x in xs]
    finally:
        FunctionNode._call_backward_arrays_now = real
        variable.backward_arrays_enabled[0] = True


def _assert_bitwise(got, expected):
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert (g is None) == (e is None)
        if g is None:
            continue
        assert g.dtype == e.dtype and g.shape == e.shape
        assert g.tobytes() == e.tobytes()


# '@intel64' under 'always': every supported call takes its oneDNN route
# (under the default 'auto' these small arrays take the NumPy path, also
# checked)
DEVICE_MODES = [('@numpy', 'auto')] + (
    [('@intel64', 'always'), ('@intel64', 'auto')]
    if intel64.is_ideep_available() else [])


@pytest.mark.parametrize('device,mode', DEVICE_MODES)
@pytest.mark.parametrize('special', [False, True])
@pytest.mark.parametrize('case', sorted(_cases(False)))
def test_backward_arrays_equals_backward_bit_for_bit(case, special, device,
                                                      mode):
    leaves, fn = _cases(special)[case]
    device = cpuframe.get_device(device)
    with numpy.errstate(all='ignore'), using_config('use_ideep', mode):
        fast = _grads(leaves, fn, device, True)
        ran = list(_ran)
        slow = _grads(leaves, fn, device, False)
    assert ran and not _ran  # the array path ran, and only when enabled
    _assert_bitwise(fast, slow)
    assert any(g is not None for g in fast)


@pytest.mark.parametrize('mode', ['never', 'always'])
@pytest.mark.parametrize('case', ['relu_chain', 'linear', 'convolution_2d',
                                  'max_pooling_2d', 'tanh', 'sigmoid',
                                  'softmax_cross_entropy'])
def test_backward_arrays_follows_the_route_choice(case, mode):
    # NumPy inputs with use_ideep 'always': the gradient nodes take their
    # oneDNN routes inside backward_arrays exactly as through apply.
    if mode == 'always' and not intel64.is_ideep_available():
        pytest.skip('needs the native module')
    leaves, fn = _cases(False)[case]
    with using_config('use_ideep', mode):
        fast = _grads(leaves, fn, cpuframe.get_device('@numpy'), True)
        slow = _grads(leaves, fn, cpuframe.get_device('@numpy'), False)
    _assert_bitwise(fast, slow)


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float64])
@pytest.mark.parametrize('case', ['mul_broadcast', 'div', 'mean_squared_error',
                                  'linear', 'softmax_cross_entropy',
                                  'div_const', 'sum_axis'])
def test_backward_arrays_other_dtypes(case, dtype):
    leaves, fn = _cases(False)[case]
    leaves = tuple(a.astype(dtype) for a in leaves)
    dev = cpuframe.get_device('@numpy')
    fast = _grads(leaves, fn, dev, True)
    slow = _grads(leaves, fn, dev, False)
    _assert_bitwise(fast, slow)
    assert fast[0].dtype == dtype


@pytest.mark.skipif(not intel64.is_ideep_available(),
                    reason='needs the native module')
@pytest.mark.parametrize('case', ['relu_chain', 'linear', 'convolution_2d',
                                  'max_pooling_2d', 'concat', 'tanh'])
def test_backward_arrays_in_mixed_bf16(case):
    leaves, fn = _cases(False)[case]
    dev = cpuframe.get_device('@intel64')
    with using_config('dtype', cpuframe.mixed_bf16):
        fast = _grads(leaves, fn, dev, True)
        slow = _grads(leaves, fn, dev, False)
    _assert_bitwise(fast, slow)


@pytest.mark.parametrize('device', DEVICES)
def test_lstm_link_steps_and_shared_weights(device):
    # L.LSTM over three steps (the fused step on '@intel64'): the weights'
    # gradients accumulate across steps (backward_accumulate, not the
    # array path) while the last step's backward runs on arrays.
    device = cpuframe.get_device(device)
    xs = [_arr(2, 6, seed=s) for s in (1, 2, 3)]

    def run(arrays_on):
        variable.backward_arrays_enabled[0] = arrays_on
        try:
            numpy.random.seed(0)
            link = L.LSTM(6, 5)
            link.to_device(device)
            loss = 0
            for x in xs:
                loss = loss + F.sum(link(device.send(x)) * 1.5)
            loss.backward()
            return [_to_numpy(p.grad) for _, p in sorted(link.namedparams())]
        finally:
            variable.backward_arrays_enabled[0] = True
    _assert_bitwise(run(True), run(False))


@pytest.mark.parametrize('special', [False, True])
@pytest.mark.parametrize('device', DEVICES)
def test_a_layer_used_at_every_step_sums_on_arrays(device, special,
                                                   monkeypatch):
    # A Linear and an L.LSTM called at every step: from the second use on,
    # their weights' gradients have sums so far. On NumPy arrays neither
    # adds into them in place (FunctionNode._accumulates_into says no), so
    # the engine runs their array backward and adds the sums itself - the
    # values of backward_accumulate's Variable sums, bit for bit, with no
    # Variable backward run; on the device the sums are handed over and
    # accumulated in place, as before. NaN, infinities and huge values
    # reach the weights' gradients with ``special``.
    from cpuframe.functions.connection.linear import LinearFunction
    from cpuframe.functions.rnn.lstm import LSTMStep
    device = cpuframe.get_device(device)
    xs = [_arr(2, 6, seed=s, special=special and s == 2) for s in (1, 2, 3, 4)]
    ran = []
    real_backward = LinearFunction.backward
    monkeypatch.setattr(LinearFunction, 'backward', lambda self, *args: (
        ran.append(1), real_backward(self, *args))[1])

    def run():
        numpy.random.seed(0)
        layer, lstm = L.Linear(6, 6), L.LSTM(6, 5)
        layer.to_device(device)
        lstm.to_device(device)
        loss = 0
        for x in xs:
            h = F.tanh(layer(device.send(x)))
            loss = loss + F.sum(lstm(layer(h)) * 1.5)
        layer.cleargrads()
        lstm.cleargrads()
        loss.backward()
        return [_to_numpy(p.grad) for p in
                list(layer.params()) + list(lstm.params())]

    with using_config('use_ideep', 'auto'):
        fast = run()
        on_arrays = not ran
        with using_config('lazy_grad_sum', True):
            # (sums deferred: handed over as before, whose order of terms
            # the deferred sum keeps)
            del ran[:]
            lazy = run()
            assert ran
        del ran[:]
        monkeypatch.setattr(LinearFunction, '_accumulates_into',
                            lambda self, sums: True)
        monkeypatch.setattr(LSTMStep, '_accumulates_into',
                            lambda self, sums: True)
        handed = run()
        assert ran  # (the default backward_accumulate: Variable backward)
        variable.backward_arrays_enabled[0] = False
        try:
            walked = run()
        finally:
            variable.backward_arrays_enabled[0] = True
    # (on the device too where 'auto' runs the layers on the plain buffers)
    assert on_arrays or device.name != '@numpy'
    assert numpy.isnan(fast[0]).any() == special
    # (with NaN on both sides of a sum the result's NaN is the first
    # operand's on x86: the engine adds the sum so far first, as for any
    # node's gradients, backward_accumulate's default its own first - a
    # NaN's sign bit may differ, every other bit is the same)
    def nan_as_one(arrays):
        return [numpy.where(numpy.isnan(a), numpy.float32(numpy.nan), a)
                for a in arrays]
    _assert_bitwise(nan_as_one(fast), nan_as_one(handed))
    _assert_bitwise(nan_as_one(fast), nan_as_one(lazy))
    _assert_bitwise(nan_as_one(fast), nan_as_one(walked))


@pytest.mark.parametrize('keeps_backward_arrays', [False, True])
def test_a_subclass_overriding_backward_accumulate_is_given_the_sums(
        keeps_backward_arrays):
    # LinearFunction's own override declines the sums on NumPy arrays; a
    # subclass that overrides backward_accumulate again is given them,
    # whether it keeps backward_arrays (declared again) or loses it.
    from cpuframe.functions.connection.linear import LinearFunction
    seen = []

    class Logged(LinearFunction):
        def backward_accumulate(self, indexes, grad_outputs, grad_inputs):
            seen.append([g is not None for g in grad_inputs])
            return super().backward_accumulate(indexes, grad_outputs,
                                               grad_inputs)

        if keeps_backward_arrays:
            backward_arrays = LinearFunction.backward_arrays

    x = _arr(3, 4)
    W = cpuframe.Parameter(_arr(5, 4, seed=1))
    y = Logged().apply((x, W))[0] + Logged().apply((x * 2, W))[0]
    F.sum(y).backward()
    # (with backward_arrays, the first node, with no sum yet, runs it)
    assert seen == ([[True]] if keeps_backward_arrays else [[False], [True]])
    numpy.testing.assert_allclose(
        W.grad, numpy.ones((3, 5), numpy.float32).T @ (x * 3), rtol=1e-5)


def test_backward_arrays_runs_and_backward_does_not():
    calls = []
    orig = ReLU.backward_arrays

    class Spy(ReLU):
        def backward_arrays(self, indexes, grad_outputs):
            calls.append('arrays')
            return orig(self, indexes, grad_outputs)

        def backward(self, indexes, grad_outputs):
            calls.append('variables')
            return super().backward(indexes, grad_outputs)

    x = Variable(_arr(3, 4))
    y = Spy().apply((x,))[0]
    y.grad = numpy.ones((3, 4), numpy.float32)
    y.backward()
    assert calls == ['arrays']
    numpy.testing.assert_array_equal(x.grad, (x.array > 0).astype('f'))
    # recorded (double backprop): the Variable-level backward
    calls.clear()
    y = Spy().apply((x,))[0]
    y.grad = numpy.ones((3, 4), numpy.float32)
    x.cleargrad()
    y.backward(enable_double_backprop=True)
    assert calls == ['variables']


def test_subclass_overriding_backward_is_not_bypassed():
    class Halved(ReLU):
        def backward(self, indexes, grad_outputs):
            return grad_outputs[0] * 0.5,

    assert Halved.backward_arrays is None
    x = Variable(_arr(3, 4))
    y = Halved().apply((x,))[0]
    y.grad = numpy.ones((3, 4), numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, numpy.full((3, 4), 0.5, 'f'))


def test_a_function_hook_sees_the_gradient_ops():
    # With a hook registered the backward runs through apply, so the hook
    # is called for the gradient nodes as before.
    class Names(FunctionHook):
        name = 'Names'

        def __init__(self):
            self.seen = []

        def forward_preprocess(self, function, in_data):
            self.seen.append(function.label)

    x = Variable(_arr(3, 4))
    hook = Names()
    with hook:
        y = F.sum(F.tanh(x))
        y.backward()
    assert 'TanhGrad' in hook.seen and 'BroadcastTo' in hook.seen


def test_debug_mode_names_the_gradient_op_that_made_a_nan():
    x = Variable(numpy.array([0., 1.], numpy.float32))
    y = F.sum(x / 0.0)
    with using_config('debug', True):
        with pytest.raises(RuntimeError, match='NaN or Inf'):
            with numpy.errstate(all='ignore'):
                y.backward()


def test_wrong_gradient_shape_from_backward_arrays_is_reported():
    class Bad(ReLU):
        def backward_arrays(self, indexes, grad_outputs):
            return numpy.zeros((2, 2), numpy.float32),

    x = Variable(_arr(3, 4))
    y = Bad().apply((x,))[0]
    y.grad = numpy.ones((3, 4), numpy.float32)
    with pytest.raises(ValueError, match=r'Bad.backward: the gradient of '
                       r'input 0 has shape \(2, 2\), expected \(3, 4\)'):
        y.backward()


def test_not_implemented_falls_back_to_backward():
    class Declines(ReLU):
        def backward_arrays(self, indexes, grad_outputs):
            return NotImplemented

    x = Variable(_arr(3, 4))
    y = Declines().apply((x,))[0]
    y.grad = numpy.ones((3, 4), numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, (x.array > 0).astype('f'))


# -- the walk carries arrays (no double backprop) -----------------------------
# A Variable is made only for what leaves the walk; these compare it with
# the walk that carries Variables throughout (backward_arrays_enabled off).

def _both_walks(run, monkeypatch):
    first = run()
    variable.backward_arrays_enabled[0] = False
    try:
        second = run()
    finally:
        variable.backward_arrays_enabled[0] = True
    return first, second


def _same_arrays(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        if x is None or y is None:
            assert x is None and y is None
        else:
            numpy.testing.assert_array_equal(numpy.asarray(x),
                                             numpy.asarray(y))


@pytest.mark.parametrize('device', DEVICES)
def test_retained_gradients_are_kept_and_not_overwritten(device, monkeypatch):
    # relu writes its input gradient over its output gradient where only
    # the walk holds it; a gradient kept by retain_grad is held by its
    # Variable, so it must keep its value
    def run():
        x = Variable(_dev(_arr(4, 6), device))
        h1 = x * 3.0
        h2 = F.relu(h1)
        h3 = F.relu(h2 - 0.5)
        y = F.sum(h3 * h3)
        y.backward(retain_grad=True)
        return [v.grad.copy() if isinstance(v.grad, numpy.ndarray)
                else numpy.asarray(v.grad) for v in (x, h1, h2, h3, y)]
    first, second = _both_walks(run, monkeypatch)
    _same_arrays(first, second)
    h3 = None
    # h3's gradient is 2 * h3, h2's the masked h3 gradient: not overwritten
    x = _arr(4, 6)
    h3 = numpy.maximum(numpy.maximum(x * 3.0, 0) - 0.5, 0)
    numpy.testing.assert_allclose(first[3], 2 * h3, rtol=1e-6)
    numpy.testing.assert_allclose(first[2], 2 * h3 * (h3 > 0), rtol=1e-6)


def _dev(a, device):
    return intel64.from_numpy(a) if device == '@intel64' else a


def test_grad_targets_and_seeds_leave_as_variables(monkeypatch):
    def run():
        def v(value):
            return Variable(numpy.array(value, numpy.float32))
        x1 = v(0.5)
        x2 = (x1 + x1) * 1.0
        y = (x2 + x2) * 1.0
        gx1, gx2 = cpuframe.grad([y], [x1, x2], [v(1.)], [v(1000.), v(100.)])
        assert isinstance(gx1, Variable) and isinstance(gx2, Variable)
        return [gx1.array, gx2.array]
    first, second = _both_walks(run, monkeypatch)
    _same_arrays(first, second)
    assert float(first[0]) == 1204.0 and float(first[1]) == 102.0


def test_a_node_with_a_hook_inside_the_walk(monkeypatch):
    # one node's own hook: that node runs backward on Variables, the rest
    # on arrays; the gradients are the same as with Variables throughout
    class Seen(FunctionHook):
        name = 'Seen'

        def __init__(self):
            self.grads = []

        def backward_preprocess(self, function, in_data, out_grad):
            self.grads.append([numpy.array(g) for g in out_grad])

    def run():
        x = Variable(_arr(3, 4, special=True))
        h = F.tanh(x * 2.0)
        z = F.relu(h) + h
        hook = Seen()
        z.creator.add_hook(hook)
        y = F.sum(F.relu(z) * z)
        y.backward()
        return [x.grad] + hook.grads[0]
    first, second = _both_walks(run, monkeypatch)
    _same_arrays(first, second)


def test_final_leaf_gradients_with_arrays(monkeypatch):
    from cpuframe.variable import final_leaf_gradients

    def run():
        w = cpuframe.Parameter(_arr(4, 5, seed=8))
        x = _arr(3, 5)
        got = []
        with final_leaf_gradients(lambda v: got.append(
                (v.name, numpy.array(v.grad)))):
            w.name = 'w'
            y = F.sum(F.linear(x, w) * F.linear(x * 2.0, w))
            y.backward()
        assert len(got) == 1 and isinstance(w.grad_var, Variable)
        return [got[0][1], w.grad]
    first, second = _both_walks(run, monkeypatch)
    _same_arrays(first, second)
