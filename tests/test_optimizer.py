"""The optimizer machinery: hyperparameters, update rules, hooks, the
update(lossfun) path, epochs, loss scaling, fp32 master copies."""
import copy
import pickle
import warnings

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
import cpuframe.links as L
from cpuframe import optimizer as optimizer_module
from cpuframe import optimizer_hooks, optimizers, serializers
from cpuframe.optimizer import GradientMethod, Hyperparameter, UpdateRule


def _link(**arrays):
    link = cpuframe.Link()
    with link.init_scope():
        for name, a in arrays.items():
            setattr(link, name, cpuframe.Parameter(numpy.asarray(a)))
    return link


def _f32(*values):
    return numpy.array(values, numpy.float32)


# -- Hyperparameter ------------------------------------------------------------
def test_hyperparameter_falls_back_to_parent():
    root = Hyperparameter()
    root.lr = 0.1
    root.momentum = 0.9
    child = Hyperparameter(root)
    assert child.parent is root
    assert child.lr == 0.1
    root.lr = 0.2
    assert child.lr == 0.2  # follows the parent until overridden
    child.lr = 0.5
    assert child.lr == 0.5 and root.lr == 0.2
    assert child.get_dict() == {'lr': 0.5, 'momentum': 0.9}
    assert repr(child) == 'Hyperparameter(lr=0.5, momentum=0.9)'
    with pytest.raises(AttributeError, match="Hyperparameter: no entry 'eps'"):
        _ = child.eps


def test_hyperparameter_copies_and_pickles():
    root = Hyperparameter()
    root.lr = 0.1
    child = Hyperparameter(root)
    for clone in (copy.deepcopy(child), pickle.loads(pickle.dumps(child)),
                  copy.copy(child)):
        assert clone.lr == 0.1


def test_rules_share_optimizer_hyperparameters():
    link = _link(a=_f32(1, 1), b=_f32(1, 1))
    opt = optimizers.SGD(lr=0.1)
    assert opt.setup(link) is opt
    for p in link.params():
        assert isinstance(p.update_rule, optimizers.SGDRule)
        assert p.update_rule.hyperparam.parent is opt.hyperparam
    opt.lr = 0.5  # the proxy reaches every rule
    link.b.update_rule.hyperparam.lr = 0.25  # ...unless overridden
    for p in link.params():
        p.grad = _f32(1, 1)
    opt.update()
    numpy.testing.assert_allclose(link.a.array, 0.5)
    numpy.testing.assert_allclose(link.b.array, 0.75)
    assert opt.hyperparam.lr == 0.5


def test_rule_constructor_overrides_and_defaults():
    rule = optimizers.MomentumSGDRule(lr=0.3)
    assert rule.hyperparam.lr == 0.3
    assert rule.hyperparam.momentum == 0.9  # module default as parent
    assert optimizers.AdamRule().hyperparam.alpha == 0.001


# -- enabling and disabling ------------------------------------------------------
def test_disabled_rule_is_skipped():
    link = _link(a=_f32(1, 2), b=_f32(1, 2))
    opt = optimizers.MomentumSGD(lr=0.1).setup(link)
    link.b.update_rule.enabled = False
    for p in link.params():
        p.grad = _f32(1, 1)
    opt.update()
    numpy.testing.assert_allclose(link.a.array, [0.9, 1.9])
    numpy.testing.assert_array_equal(link.b.array, [1, 2])
    assert link.b.update_rule.t == 0 and link.b.update_rule.state is None
    assert opt.t == 1


def test_link_disable_update_before_and_after_setup():
    model = cpuframe.Chain()
    with model.init_scope():
        model.l1 = L.Linear(2, 2)
        model.l2 = L.Linear(2, 2)
    model.l1.disable_update()
    opt = optimizers.SGD(lr=1.0).setup(model)
    assert not model.l1.W.update_rule.enabled
    assert model.l2.W.update_rule.enabled
    before = model.l1.W.array.copy()
    model.l2.disable_update()
    model.l1.enable_update()
    for p in model.params():
        p.grad = numpy.ones_like(p.array)
    before2 = model.l2.W.array.copy()
    opt.update()
    numpy.testing.assert_allclose(model.l1.W.array, before - 1)
    numpy.testing.assert_array_equal(model.l2.W.array, before2)


# -- the update(lossfun) path --------------------------------------------------
def test_update_with_lossfun_clears_old_grads_and_passes_args():
    link = _link(w=_f32(1, 2, 3))
    opt = optimizers.SGD(lr=0.1).setup(link)
    link.w.grad = _f32(100, 100, 100)  # stale: must not be accumulated
    seen = {}

    def lossfun(x, scale=1.0):
        seen['args'] = (x, scale)
        return F.sum(link.w * x) * scale

    x = _f32(1, -1, 2)
    opt.update(lossfun, x, scale=2.0)
    assert seen['args'][1] == 2.0
    numpy.testing.assert_allclose(link.w.array, [1 - 0.2, 2 + 0.2, 3 - 0.4])
    numpy.testing.assert_allclose(link.w.grad, [2, -2, 4])


def test_update_lossfun_must_return_variable():
    opt = optimizers.SGD().setup(_link(w=_f32(1)))
    with pytest.raises(TypeError, match='lossfun must return a Variable'):
        opt.update(lambda: 1.0)


def test_use_cleargrads_false_uses_zerograds():
    link = _link(w=_f32(1, 2))
    opt = optimizers.SGD(lr=0.1).setup(link)
    with pytest.warns(DeprecationWarning):
        opt.use_cleargrads(False)
    opt.update(lambda: F.sum(link.w * 3))
    numpy.testing.assert_allclose(link.w.array, [0.7, 1.7])


def test_update_before_setup_raises():
    with pytest.raises(RuntimeError, match=r'SGD.update: call setup'):
        optimizers.SGD().update()


def test_setup_rejects_non_link():
    # Chainer 7's message, which users match on.
    with pytest.raises(TypeError, match='^optimization target must be a link'):
        optimizers.SGD().setup([1, 2])
    with pytest.raises(TypeError, match='optimization target must be a link'):
        optimizers.Adam().setup(lambda x: x)


def test_missing_grads_become_zeros_as_in_chainer():
    # GradientMethod.update gives parameters without a gradient zeros
    # (Chainer's reallocate_cleared_grads), so momentum keeps moving them.
    link = _link(a=_f32(0.0), b=_f32(0.0))
    opt = optimizers.MomentumSGD(lr=0.1, momentum=0.5).setup(link)
    link.a.grad = _f32(1.0)
    link.b.grad = _f32(1.0)
    opt.update()
    link.a.grad = _f32(1.0)
    link.b.cleargrad()
    opt.update()
    numpy.testing.assert_allclose(link.a.array, [-0.1 - 0.15])
    numpy.testing.assert_allclose(link.b.array, [-0.1 - 0.05])
    numpy.testing.assert_array_equal(link.b.grad, [0.0])


def test_uninitialized_param_gets_rule_and_updates_after_init():
    model = L.Linear(None, 2)
    opt = optimizers.SGD(lr=0.5).setup(model)
    assert model.W.update_rule is not None and model.W.array is None
    opt.update()  # nothing initialized yet: no error
    x = numpy.ones((1, 3), numpy.float32)
    loss = F.sum(model(x))
    w0 = model.W.array.copy()
    model.cleargrads()
    loss.backward()
    opt.update()
    numpy.testing.assert_allclose(model.W.array, w0 - 0.5)


def test_shared_and_readonly_gradients_are_not_corrupted():
    # sum(a + b) hands a and b one shared (read-only broadcast) gradient;
    # weight decay on each must not leak into the other.
    link = _link(a=_f32(1, 2), b=_f32(3, 4))
    opt = optimizers.SGD(lr=0.1).setup(link)
    opt.add_hook(optimizer_hooks.WeightDecay(0.5))
    opt.update(lambda: F.sum(link.a + link.b))
    numpy.testing.assert_allclose(link.a.array, [1 - 0.1 * 1.5, 2 - 0.1 * 2])
    numpy.testing.assert_allclose(link.b.array, [3 - 0.1 * 2.5, 4 - 0.1 * 3])


def test_updates_stay_in_place_on_intel64_device():
    from cpuframe.backends import intel64
    if not intel64.is_ideep_available():
        pytest.skip('native module unavailable: {}'.format(
            intel64.unavailable_reason()))
    model = L.Linear(3, 2)
    model.to_intel64()
    arrays = [p.array for p in model.params()]
    opt = optimizers.Adam().setup(model)
    x = numpy.ones((2, 3), numpy.float32)
    opt.update(lambda: F.sum(model(x)))
    assert [p.array for p in model.params()] == arrays
    for p in model.params():
        assert all(cpuframe.backend.get_device_from_array(s) ==
                   cpuframe.backend.get_device_from_array(p.array)
                   for s in p.update_rule.state.values())


# -- epochs --------------------------------------------------------------------
def test_new_epoch_and_auto():
    opt = optimizers.SGD().setup(_link(w=_f32(1)))
    opt.new_epoch()
    assert opt.epoch == 1
    with pytest.raises(RuntimeError,
                       match='^invalid new_epoch call with auto=True'):
        opt.new_epoch(auto=True)
    opt.use_auto_new_epoch = True
    opt.new_epoch(auto=True)
    assert opt.epoch == 2
    with pytest.raises(RuntimeError,
                       match='^duplicated new_epoch with the updater'):
        opt.new_epoch()
    opt.setup(_link(w=_f32(1)))
    assert opt.epoch == 0 and opt.t == 0


# -- hooks -----------------------------------------------------------------------
def test_add_hook_errors():
    opt = optimizers.SGD()
    with pytest.raises(RuntimeError,
                       match='^call `setup` method before `add_hook` method'):
        opt.add_hook(optimizer_hooks.WeightDecay(0.1))
    opt.setup(_link(w=_f32(1)))
    with pytest.raises(TypeError, match='^hook function is not callable'):
        opt.add_hook(3, name='x')
    with pytest.raises(ValueError, match=r"^timing must be one of \('pre', "
                       r"'post', 'auto'\)"):
        opt.add_hook(optimizer_hooks.WeightDecay(0.1), timing='during')
    opt.add_hook(optimizer_hooks.WeightDecay(0.1))
    with pytest.raises(KeyError, match='hook "WeightDecay" already exists'):
        opt.add_hook(optimizer_hooks.WeightDecay(0.2))
    opt.add_hook(optimizer_hooks.WeightDecay(0.2), name='wd2')
    opt.remove_hook('wd2')
    with pytest.raises(KeyError, match="no hook named 'wd2'"):
        opt.remove_hook('wd2')
    with pytest.raises(ValueError,
                       match="^timing must be either 'pre' or 'post'"):
        opt.call_hooks('later')


def test_plain_function_hook_gets_optimizer_and_defaults_to_pre():
    link = _link(w=_f32(1, 2))
    opt = optimizers.SGD(lr=1.0).setup(link)
    calls = []

    def double_grads(o):
        calls.append((o, o.t))
        for p in o.target.params():
            p.grad *= 2

    with pytest.warns(UserWarning, match="defaulting timing to 'pre'"):
        opt.add_hook(double_grads)
    link.w.grad = _f32(1, 1)
    opt.update()
    assert calls == [(opt, 0)]
    numpy.testing.assert_allclose(link.w.array, [-1, 0])


def test_update_rule_hook_errors():
    rule = optimizers.SGDRule()
    with pytest.raises(TypeError, match='^hook function must be callable'):
        rule.add_hook(None)
    rule.add_hook(optimizer_hooks.Lasso(0.1))
    with pytest.raises(ValueError, match='already exists'):
        rule.add_hook(optimizer_hooks.Lasso(0.1))
    with pytest.raises(KeyError):
        rule.remove_hook('nothing')


class _CountingHook:
    """A hook with state, to check hook serialization."""
    name = 'Counting'
    timing = 'post'

    def __init__(self):
        self.calls = 0

    def __call__(self, opt):
        self.calls += 1

    def serialize(self, serializer):
        self.calls = serializer('calls', self.calls)


def test_hook_state_is_serialized(tmp_path):
    opt = optimizers.SGD().setup(_link(w=_f32(1)))
    hook = _CountingHook()
    opt.add_hook(hook)
    for _ in range(3):
        opt.update()
    path = str(tmp_path / 'opt.npz')
    serializers.save_npz(path, opt)
    with numpy.load(path) as f:
        assert int(f['_hooks/Counting/calls']) == 3
    opt2 = optimizers.SGD().setup(_link(w=_f32(1)))
    hook2 = _CountingHook()
    opt2.add_hook(hook2)
    serializers.load_npz(path, opt2)
    assert hook2.calls == 3 and opt2.t == 3


def test_serialize_before_setup_raises():
    with pytest.raises(RuntimeError, match='SGD.serialize: call setup'):
        serializers.DictionarySerializer().save(optimizers.SGD())


# -- loss scaling ------------------------------------------------------------------
def _loss_of(link, x):
    return lambda: F.sum(link.w * x) * 0.5


@pytest.mark.parametrize('scale', [None, 1024.0])
def test_static_loss_scale_gives_unscaled_update(scale):
    link = _link(w=_f32(1, 2, 3))
    opt = optimizers.SGD(lr=0.1).setup(link)
    opt.add_hook(optimizer_hooks.GradientClipping(0.5))
    if scale is not None:
        opt.set_loss_scale(scale)
        assert opt._loss_scale == scale
    x = _f32(1, 2, 2)
    opt.update(_loss_of(link, x))
    # grad = x / 2 = (0.5, 1, 1), norm 1.5, clipped to 0.5: rate 1/3
    numpy.testing.assert_allclose(
        link.w.array, _f32(1, 2, 3) - 0.1 * _f32(0.5, 1, 1) / 3, rtol=1e-6)
    assert link.w._loss_scale is None


def test_param_loss_scale_divides_once():
    link = _link(w=_f32(1, 2))
    opt = optimizers.SGD(lr=0.1).setup(link)
    loss = F.sum(link.w * _f32(1, 3))
    loss.backward(loss_scale=8.0)
    numpy.testing.assert_allclose(link.w.grad, [8, 24])
    link.w.update()
    numpy.testing.assert_allclose(link.w.array, [0.9, 1.7])
    numpy.testing.assert_allclose(link.w.grad, [1, 3])
    opt.update()  # no new backward: the gradient is not divided again
    numpy.testing.assert_allclose(link.w.array, [0.8, 1.4])


def test_dynamic_loss_scaling():
    link = _link(w=_f32(1, 2))
    opt = optimizers.SGD(lr=0.1).setup(link)
    with pytest.raises(ValueError, match='^interval must be greater than or '
                       'equal to 1. Actual: 0'):
        opt.loss_scaling(interval=0)
    with pytest.raises(ValueError, match='^loss_scale must be a positive '
                       'number. Actual: -1'):
        opt.loss_scaling(scale=-1)
    opt.loss_scaling(interval=4)
    assert opt._loss_scale == 1.0
    opt.update(_loss_of(link, _f32(2, 2)))
    numpy.testing.assert_allclose(link.w.array, [0.9, 1.9])
    assert opt._loss_scale == 2.0  # doubles until the first overflow
    link.w.grad = _f32(numpy.inf, 1)
    with pytest.warns(UserWarning, match='non-finite gradient in /w'):
        opt.update()
    numpy.testing.assert_allclose(link.w.array, [0.9, 1.9])  # skipped
    assert opt._loss_scale == 1.0 and opt.t == 2
    opt.update(_loss_of(link, _f32(2, 2)))
    numpy.testing.assert_allclose(link.w.array, [0.8, 1.8])
    assert opt._loss_scale == pytest.approx(2 ** 0.25)  # after overflow
    opt.set_loss_scale(3.0)  # static again: no more adapting
    opt.update(_loss_of(link, _f32(2, 2)))
    assert opt._loss_scale == 3.0


# -- float32 master copies for float16 parameters --------------------------------------
def test_fp32_update_accumulates_small_steps():
    def run(use_fp32):
        link = _link(w=numpy.ones(2, numpy.float16))
        data = link.w.array
        opt = optimizers.SGD(lr=1e-4).setup(link)
        if use_fp32:
            opt.use_fp32_update()
        for _ in range(20):
            link.w.grad = numpy.ones(2, numpy.float16)
            opt.update()
        assert link.w.array is data and data.dtype == numpy.float16
        return data
    numpy.testing.assert_array_equal(run(False), 1.0)  # each step rounds away
    numpy.testing.assert_allclose(run(True), 0.998, atol=5e-4)


def test_fp32_master_follows_outside_changes():
    link = _link(w=numpy.ones(2, numpy.float16))
    opt = optimizers.SGD(lr=0.5).setup(link)
    opt.use_fp32_update()
    link.w.grad = numpy.ones(2, numpy.float16)
    opt.update()
    link.w.array[...] = 10  # e.g. a model load
    link.w.grad = numpy.ones(2, numpy.float16)
    opt.update()
    numpy.testing.assert_array_equal(link.w.array, 9.5)


# -- base classes ---------------------------------------------------------------------
class _HalvingRule(UpdateRule):
    def init_state(self, param):
        self.state['count'] = numpy.zeros_like(param.array)

    def update_core_cpu(self, param):
        self.state['count'] += 1
        param.array[...] *= 0.5


class _Halving(GradientMethod):
    def create_update_rule(self):
        return _HalvingRule(self.hyperparam)


def test_custom_rule_and_state_roundtrip(tmp_path):
    link = _link(w=_f32(8, 4))
    opt = _Halving().setup(link)
    opt.update()
    opt.update()
    numpy.testing.assert_allclose(link.w.array, [2, 1])
    path = str(tmp_path / 'o.npz')
    serializers.save_npz(path, opt)
    opt2 = _Halving().setup(_link(w=_f32(0, 0)))
    serializers.load_npz(path, opt2)
    numpy.testing.assert_array_equal(
        opt2.target.w.update_rule.state['count'], [2, 2])


def test_abstract_methods_name_the_class():
    class NoCore(UpdateRule):
        pass

    p = cpuframe.Parameter(_f32(1))
    p.grad = _f32(1)
    with pytest.raises(NotImplementedError, match='NoCore: implement'):
        NoCore().update(p)
    with pytest.raises(NotImplementedError, match='create_update_rule'):
        GradientMethod().setup(_link(w=_f32(1)))
    with pytest.raises(NotImplementedError):
        optimizer_module.Optimizer().update()


def test_deepcopy_optimizer_with_model_continues_identically():
    model = L.Linear(3, 2)
    opt = optimizers.Adam(alpha=0.01).setup(model)
    x = numpy.random.RandomState(0).normal(size=(4, 3)).astype(numpy.float32)

    def step(m, o):
        o.update(lambda: F.sum(m(x) ** 2))

    step(model, opt)
    model2, opt2 = copy.deepcopy((model, opt))
    assert opt2.target is model2
    assert model2.W.update_rule.hyperparam.parent is opt2.hyperparam
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        step(model, opt)
        step(model2, opt2)
    numpy.testing.assert_array_equal(model.W.array, model2.W.array)


def test_update_prologue_reads_parameters_as_their_properties_do():
    """update() reads an exact Parameter's array and gradient without its
    properties; a Parameter subclass (its own ``grad``) is read through
    them: a missing gradient becomes zeros, a gradient shared by two
    parameters or read-only is copied first, an uninitialized parameter is
    left alone - for both kinds alike."""
    import numpy

    import cpuframe
    from cpuframe import optimizers

    reads = []

    class Watched(cpuframe.Parameter):
        @property
        def grad(self):
            reads.append(1)
            return cpuframe.Parameter.grad.fget(self)

        @grad.setter
        def grad(self, g):
            cpuframe.Parameter.grad.fset(self, g)

    link = cpuframe.Link()
    with link.init_scope():
        for name, cls in (('a', cpuframe.Parameter), ('b', Watched),
                          ('c', cpuframe.Parameter), ('d', Watched)):
            setattr(link, name, cls(numpy.ones(3, numpy.float32)))
        link.u = cpuframe.Parameter()      # uninitialized
    opt = optimizers.SGD(lr=0.5).setup(link)
    shared = numpy.full(3, 2, numpy.float32)
    link.a.grad = shared
    link.b.grad = shared                 # the same array: copied once
    link.c.grad = None                   # zeros
    ro = numpy.full(3, 4, numpy.float32)
    ro.flags.writeable = False
    link.d.grad = ro                     # read-only: copied
    opt.update()
    numpy.testing.assert_array_equal(link.a.array, [0, 0, 0])
    numpy.testing.assert_array_equal(link.b.array, [0, 0, 0])
    numpy.testing.assert_array_equal(link.c.array, [1, 1, 1])
    numpy.testing.assert_array_equal(link.d.array, [-1, -1, -1])
    assert link.a.grad is not link.b.grad
    numpy.testing.assert_array_equal(link.c.grad, [0, 0, 0])
    assert link.d.grad.flags.writeable and link.u.array is None
    assert reads, 'the subclass was not read through its property'
