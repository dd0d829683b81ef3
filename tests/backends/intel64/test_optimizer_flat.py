"""Element-wise update rules on the Intel64 device run on flat views of the
buffers (Intel64Device.elementwise_update): same parameters as the NumPy path after
several steps, for every optimizer, with blocked (padded) weights; padding
zero afterwards; rules that are not element-wise keep the mdarray path."""
import numpy
import pytest

import cpuframe
import cpuframe.functions as F
import cpuframe.links as L
from cpuframe import optimizer_hooks, optimizers
from cpuframe.backends import intel64
from cpuframe.backends._base import Device

OPTIMIZERS = [
    lambda: optimizers.SGD(0.1),
    lambda: optimizers.MomentumSGD(0.05),
    lambda: optimizers.NesterovAG(0.05),
    lambda: optimizers.CorrectedMomentumSGD(0.05),
    lambda: optimizers.AdaGrad(0.05),
    lambda: optimizers.AdaDelta(),
    lambda: optimizers.RMSprop(0.01),
    lambda: optimizers.RMSpropGraves(0.01),
    lambda: optimizers.Adam(0.01),
    lambda: optimizers.Adam(0.01, amsgrad=True, weight_decay_rate=0.01),
    lambda: optimizers.Adam(0.01, adabound=True),
    lambda: optimizers.SMORMS3(0.01),
    lambda: optimizers.MSVAG(0.01),
]


class Net(cpuframe.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.conv = L.Convolution2D(3, 5, 3, pad=1)
            self.l1 = L.Linear(5 * 6 * 6, 37)  # odd sizes: padded layouts
            self.l2 = L.Linear(37, 4)

    def forward(self, x):
        h = F.relu(self.conv(x))
        return self.l2(F.relu(self.l1(h)))


def _train(make_opt, device, steps=4, hook=None):
    rng = numpy.random.default_rng(0)
    x = rng.standard_normal((8, 3, 6, 6)).astype(numpy.float32)
    t = rng.integers(0, 4, 8).astype(numpy.int32)
    numpy.random.seed(1)
    net = Net()
    opt = make_opt()
    opt.setup(net)
    if hook is not None:
        opt.add_hook(hook)
    if device == 'intel64':
        net.to_intel64()
        x = intel64.from_numpy(x)
    for _ in range(steps):
        loss = F.softmax_cross_entropy(net(x), t)
        net.cleargrads()
        loss.backward()
        opt.update()
    return net


@pytest.mark.parametrize('make_opt', OPTIMIZERS)
def test_device_updates_match_numpy(make_opt, monkeypatch):
    flat_calls = []
    # the device hook the optimizer asks (Device's default declines)
    for cls in (Device, intel64.Intel64Device):
        def spy(self, rule, param, _original=cls.elementwise_update, **kw):
            done = _original(self, rule, param, **kw)
            flat_calls.append(done)
            return done

        monkeypatch.setattr(cls, 'elementwise_update', spy)
    ref = _train(make_opt, 'numpy')
    assert not any(flat_calls)
    flat_calls.clear()
    got = _train(make_opt, 'intel64')
    assert flat_calls and all(flat_calls)
    pairs = zip(sorted(ref.namedparams()), sorted(got.namedparams()))
    for (name, p0), (_, p1) in pairs:
        arr = p1.array
        assert intel64.is_native_array(arr)
        # (RMSprop's first steps amplify the float32 differences of the
        # oneDNN gradients: ~lr * 1e-2)
        numpy.testing.assert_allclose(numpy.asarray(arr), p0.array, rtol=1e-3,
                                      atol=1e-4, err_msg=name)
        if arr.has_padding:
            # the padding of the blocked layout is zero: a copy re-zeroed
            # from scratch has the same raw bytes
            raw = numpy.array(arr.raw_view())
            again = intel64.mdarray.zeros_like(arr)
            again.copy_from(numpy.asarray(arr))
            numpy.testing.assert_array_equal(raw, numpy.asarray(again.raw_view()))


def test_gradient_noise_keeps_padding_zero():
    net = _train(lambda: optimizers.SGD(0.1), 'intel64',
                 hook=optimizer_hooks.GradientNoise(0.5))
    padded = [p.array for _, p in net.namedparams() if p.array.has_padding]
    assert padded
    for arr in padded:
        again = intel64.mdarray.zeros_like(arr)
        again.copy_from(numpy.asarray(arr))
        numpy.testing.assert_array_equal(numpy.asarray(arr.raw_view()),
                                         numpy.asarray(again.raw_view()))


def test_amsgrad_switched_on_later_keeps_state_on_device():
    net = _train(lambda: optimizers.Adam(0.01), 'intel64', steps=2)
    opt = optimizers.Adam(0.01)
    opt.setup(net)
    x = intel64.from_numpy(numpy.ones((2, 3, 6, 6), numpy.float32))
    for amsgrad in (False, True):
        opt.hyperparam.amsgrad = amsgrad
        loss = F.sum(net(x))
        net.cleargrads()
        loss.backward()
        opt.update()
    for _, p in net.namedparams():
        assert intel64.is_native_array(p.update_rule.state['vhat'])


def test_rule_not_elementwise_keeps_the_mdarray_path():
    seen = []

    class Rule(cpuframe.optimizer.UpdateRule):
        def update_core_cpu(self, param):
            seen.append(type(param.array))
            param.array -= 0.1 * param.grad

    class Opt(cpuframe.optimizer.GradientMethod):
        def create_update_rule(self):
            return Rule()

    rng = numpy.random.default_rng(0)
    lin = L.Linear(6, 3)
    opt = Opt()
    opt.setup(lin)
    lin.to_intel64()
    x = rng.standard_normal((4, 6)).astype(numpy.float32)
    loss = F.sum(lin(intel64.from_numpy(x)))
    loss.backward()
    opt.update()
    assert seen and all(t is intel64.mdarray for t in seen)


def _param_with_grad(rng, shape):
    p = cpuframe.Parameter(intel64.from_numpy(
        rng.standard_normal(shape).astype(numpy.float32)))
    return p


def _numpy_and_device_pair(make_opt, seed, shape, steps):
    """A weight ``w0`` of ``shape``, ``steps`` gradients for it, and two
    Parameters of it (``ref`` on NumPy, ``got`` on '@intel64'), each
    under its own optimizer (``opts``)."""
    rng = numpy.random.default_rng(seed)
    w0 = rng.standard_normal(shape).astype(numpy.float32)
    grads = [rng.standard_normal(shape).astype(numpy.float32)
             for _ in range(steps)]
    ref = cpuframe.Parameter(w0.copy())
    got = cpuframe.Parameter(intel64.from_numpy(w0))
    opts = [make_opt().setup(_Holder(ref)), make_opt().setup(_Holder(got))]
    return w0, grads, ref, got, opts


@pytest.mark.parametrize('make_opt', [OPTIMIZERS[0], OPTIMIZERS[8]])
def test_kept_views_follow_buffers_replaced_in_place(make_opt):
    # The update keeps views of the parameter's and the state's buffers
    # between steps; a parameter re-laid out in place (a new buffer), a
    # state array replaced (a loaded snapshot) must not be updated through
    # stale views: every step matches the NumPy path's.
    w0, grads, ref, got, opts = _numpy_and_device_pair(make_opt, 3,
                                                       (37, 20), 4)
    for step, g in enumerate(grads):
        ref.grad = g.copy()
        got.grad = intel64.from_numpy(g) if step != 2 else g.copy()
        if step == 1:
            before = got.array.data_ptr
            got.array.reorder_inplace('ba')  # same object, new buffer
            assert got.array.data_ptr != before and not got.array.is_plain
            got.grad = got.grad.reorder('ba')
        if step == 3 and opts[1].target.p.update_rule.state:
            # a state entry replaced by another array of the same values
            rule = got.update_rule
            for key, value in list(rule.state.items()):
                rule.state[key] = value.reorder_to_layout_of(value)
        for opt in opts:
            opt.update()
        numpy.testing.assert_allclose(numpy.asarray(got.array), ref.array,
                                      rtol=1e-5, atol=1e-6,
                                      err_msg='step {}'.format(step))
    if not got.update_rule.state:
        # (Adam's state stayed in the old layout: the mdarray path then)
        assert got.update_rule._intel64_plan is not None


class _Holder(cpuframe.Link):
    def __init__(self, p):
        super().__init__()
        with self.init_scope():
            self.p = p


@pytest.mark.parametrize('make_opt', [OPTIMIZERS[1], OPTIMIZERS[8],
                                      OPTIMIZERS[9]])
@pytest.mark.parametrize('change', ['replace', 'extra_key', 'scalar',
                                    'swap'])
def test_kept_views_follow_state_entries_replaced(make_opt, change):
    # A state entry replaced between updates by an array of other values
    # (a snapshot loaded, a user's reset), an entry added, or a non-array
    # entry replaced: the next update must read and write the new entry,
    # not the kept view of the old one. Every step equals the NumPy path's
    # doing the same; the replaced device array is the one updated.
    w0, grads, ref, got, opts = _numpy_and_device_pair(make_opt, 5,
                                                       (16, 8), 5)
    replaced = None
    for step, g in enumerate(grads):
        ref.grad = g.copy()
        got.grad = intel64.from_numpy(g)
        if step == 3:
            for p in (ref, got):
                state = p.update_rule.state
                key = sorted(k for k, v in state.items()
                             if hasattr(v, 'shape'))[0]
                if change == 'replace':
                    new = numpy.full(w0.shape, 0.25, numpy.float32)
                    state[key] = new if p is ref else intel64.from_numpy(new)
                    if p is got:
                        replaced = state[key]
                elif change == 'swap':
                    # the same arrays under each other's keys, in the
                    # dictionary's former order of values
                    arrays = [k for k, v in state.items()
                              if hasattr(v, 'shape')]
                    if len(arrays) < 2:
                        continue
                    a, b = arrays[0], arrays[1]
                    va, vb = state.pop(a), state.pop(b)
                    state[b] = va
                    state[a] = vb
                elif change == 'extra_key':
                    state['extra'] = numpy.zeros(3, numpy.float32)
                else:
                    state['extra'] = 1
        if step == 4 and change == 'scalar':
            for p in (ref, got):
                p.update_rule.state['extra'] = 2
        for opt in opts:
            opt.update()
        numpy.testing.assert_allclose(numpy.asarray(got.array), ref.array,
                                      rtol=1e-5, atol=1e-6,
                                      err_msg='step {}'.format(step))
        if step >= 1:   # (the plan exists from the second update on)
            assert got.update_rule._intel64_plan is not None or \
                change == 'extra_key'
    if replaced is not None:
        key = [k for k, v in got.update_rule.state.items()
               if v is replaced]
        assert key, 'the replaced entry was dropped'
        # updated in place from 0.25: the update read and wrote it
        assert not numpy.allclose(numpy.asarray(replaced), 0.25)
