"""GradientMethod._update_each's shared steps (``UpdateRule._shared_step``:
SGD, the velocity rules, Adam) against each parameter's own update: bit for
bit the same parameters, states and ``t`` on a model whose parameters take
different ways, and the step taken where its case holds."""
import numpy
import pytest

import cpuframe
from cpuframe import optimizer
from cpuframe.optimizers import _momentum, adam, sgd

OPTIMIZERS = [
    ('SGD', lambda: cpuframe.optimizers.SGD(lr=0.05), sgd.SGDRule, 'lr'),
    ('MomentumSGD', lambda: cpuframe.optimizers.MomentumSGD(lr=0.05),
     _momentum.VelocityRule, 'lr'),
    ('NesterovAG', lambda: cpuframe.optimizers.NesterovAG(lr=0.05),
     _momentum.VelocityRule, 'lr'),
    ('CorrectedMomentumSGD',
     lambda: cpuframe.optimizers.CorrectedMomentumSGD(lr=0.05),
     _momentum.VelocityRule, 'lr'),
    ('Adam', lambda: cpuframe.optimizers.Adam(alpha=0.01), adam.AdamRule,
     'alpha'),
]


def _spy_steps(rule_class, shared, monkeypatch):
    # shared: the calls of the class's step recorded as (rule, done);
    # otherwise the class has no step (each parameter its own update)
    taken = []
    if shared:
        maker = rule_class._shared_step
        step_update = maker.update

        def counted(self, rule, state, data, grad):
            ok = step_update(self, rule, state, data, grad)
            taken.append((rule, ok))
            return ok
        monkeypatch.setattr(maker, 'update', counted)
    else:
        monkeypatch.setattr(rule_class, '_shared_step', None)
    return taken


def _train(make, rule_class, rate, shared, monkeypatch):
    # Parameters a and e: plain; b: its own rate; c: a hook that halves the
    # optimizer's rate during the update (e and later read the new value);
    # z: float64; f: added after two steps (its own t). Returns the arrays,
    # states, each rule's t and (name, done) per call of the shared step.
    taken = _spy_steps(rule_class, shared, monkeypatch)
    rng = numpy.random.default_rng(11)
    model = cpuframe.Chain()
    with model.init_scope():
        for name, shape, dtype in [('a', (3, 4), numpy.float32),
                                   ('b', (5,), numpy.float32),
                                   ('c', (2, 2), numpy.float32),
                                   ('e', (6,), numpy.float32),
                                   ('z', (4,), numpy.float64)]:
            setattr(model, name, cpuframe.Parameter(
                rng.standard_normal(shape).astype(dtype)))
    opt = make().setup(model)
    setattr(model.b.update_rule.hyperparam, rate, 0.3)

    def halve(rule, param):
        setattr(opt, rate, getattr(opt, rate) * 0.5)
    model.c.update_rule.add_hook(halve, name='halve', timing='post')
    for step in range(4):
        if step == 2:
            with model.init_scope():
                model.f = cpuframe.Parameter(
                    rng.standard_normal((3,)).astype(numpy.float32))
            model.f.update_rule = opt.create_update_rule()
        for p in model.params():
            p.update_rule.name_for_test = p.name
            p.grad = rng.standard_normal(p.shape).astype(p.dtype)
        opt.update()
    params = sorted(model.namedparams())
    arrays = [p.array.copy() for _, p in params] + [
        numpy.asarray(v).copy() for _, p in params
        for _, v in sorted(p.update_rule.state.items())]
    return (arrays, [p.update_rule.t for _, p in params],
            [(rule.name_for_test, ok) for rule, ok in taken])


@pytest.mark.parametrize('name,make,rule_class,rate', OPTIMIZERS,
                         ids=[o[0] for o in OPTIMIZERS])
def test_shared_step_is_each_parameters_update(name, make, rule_class, rate,
                                               monkeypatch):
    arrays, ts, taken = _train(make, rule_class, rate, True, monkeypatch)
    monkeypatch.undo()
    ref_arrays, ref_ts, none_taken = _train(make, rule_class, rate, False,
                                            monkeypatch)
    assert none_taken == []
    assert ts == ref_ts == [4, 4, 4, 4, 2, 4]       # a, b, c, e, f, z
    assert len(arrays) == len(ref_arrays)
    for a, b in zip(arrays, ref_arrays):
        assert a.dtype == b.dtype
        assert numpy.array_equal(a, b)
    # the plain float32 parameters took the shared step (Adam's native
    # kernel declines float64; the NumPy steps take it too); the one with
    # its own rate and the one with a hook did not reach it
    done = {n for n, ok in taken if ok}
    expected = {'a', 'e', 'f'} if name == 'Adam' else {'a', 'e', 'f', 'z'}
    if name == 'Adam' and adam._native_kernel() is None:
        expected = set()           # (no native module: no shared step)
    assert done == expected
    if expected and name == 'Adam':
        assert ('z', False) in taken
    assert not any(n in ('b', 'c') for n, _ in taken)


def test_a_subclass_that_replaces_the_update_takes_its_own():
    # A rule class whose update_core_cpu is its own does not take its base
    # class's shared step.
    class Doubling(sgd.SGDRule):
        def update_core_cpu(self, param):
            param.array -= 2 * self.hyperparam.lr * param.grad

    class DoublingSGD(cpuframe.optimizers.SGD):
        def create_update_rule(self):
            return Doubling(self.hyperparam)

    model = cpuframe.Chain()
    with model.init_scope():
        model.w = cpuframe.Parameter(numpy.ones(3, numpy.float32))
    opt = DoublingSGD(lr=0.25).setup(model)
    model.w.grad = numpy.ones(3, numpy.float32)
    opt.update()
    numpy.testing.assert_array_equal(model.w.array, 0.5)
    assert not optimizer._shared_class(Doubling, sgd.SGDRule._shared_step)

    # so does one that replaces only its direct update's last step
    class Halving(sgd.SGDRule):
        def _direct_cpu(self, param, data, grad):
            data -= 0.5 * self.hyperparam.lr * grad

    class HalvingSGD(cpuframe.optimizers.SGD):
        def create_update_rule(self):
            return Halving(self.hyperparam)

    model.w.array[...] = 1
    opt = HalvingSGD(lr=0.25).setup(model)
    opt.update()                   # (the first: update_core_cpu, 0.75)
    opt.update()
    numpy.testing.assert_array_equal(model.w.array, 0.625)
    assert optimizer._shared_class(sgd.SGDRule, sgd.SGDRule._shared_step)


def _train_on_device(make, rule_class, shared, monkeypatch):
    # a small convnet on '@intel64' (a convolution's weight re-laid out by
    # oneDNN, with padding in its blocked layout; plain Linear weights):
    # the shared step runs on the flat views of each parameter's kept plan
    taken = _spy_steps(rule_class, shared, monkeypatch)
    rng = numpy.random.default_rng(2)
    model = cpuframe.Sequential(
        cpuframe.links.Convolution2D(3, 20, 3, pad=1),
        cpuframe.functions.relu,
        cpuframe.links.Linear(None, 5))
    model(numpy.zeros((2, 3, 6, 6), numpy.float32))       # shapes known
    for p in model.params():
        p.array[...] = rng.standard_normal(p.shape).astype(numpy.float32)
    model.to_device('@intel64')
    opt = make().setup(model)
    with cpuframe.using_config('use_ideep', 'always'):
        for _ in range(3):
            x = model.device.send(
                rng.standard_normal((2, 3, 6, 6)).astype(numpy.float32))
            model.cleargrads()
            cpuframe.functions.sum(model(x) ** 2).backward()
            opt.update()
    padded = any(getattr(p.update_rule.__dict__.get('_intel64_plan'),
                         'padded', None) for p in model.params())
    model.to_device('@numpy')
    return ([p.array.copy() for _, p in sorted(model.namedparams())],
            [ok for _, ok in taken], padded)


@pytest.mark.parametrize('name,make,rule_class,rate', OPTIMIZERS,
                         ids=[o[0] for o in OPTIMIZERS])
def test_shared_step_on_the_intel64_device(name, make, rule_class, rate,
                                           monkeypatch):
    from cpuframe.backends import intel64
    if not intel64.is_ideep_available():
        pytest.skip('native module unavailable')
    arrays, done, padded = _train_on_device(make, rule_class, True,
                                            monkeypatch)
    monkeypatch.undo()
    ref, _, _ = _train_on_device(make, rule_class, False, monkeypatch)
    assert padded       # (the convolution's weight in a padded layout)
    for a, b in zip(arrays, ref):
        assert numpy.array_equal(a, b)
    # the first update makes the plans; the later ones take the step
    assert done.count(True) >= 2 * 4 and all(done)


def test_values_are_read_again_only_after_code_of_the_users():
    # Parameters whose rules have values of their own take their own way
    # (cpuframe's code): the shared values are read once per update; a
    # rule with a hook makes the next parameter read them again.
    reads = []
    read = sgd._SharedStep.read.__func__

    def counted(cls, hp):
        reads.append(1)
        return read(cls, hp)
    model = cpuframe.Chain()
    with model.init_scope():
        for name in 'abcd':
            setattr(model, name,
                    cpuframe.Parameter(numpy.ones(3, numpy.float32)))
    opt = cpuframe.optimizers.SGD(lr=0.5).setup(model)
    model.a.update_rule.hyperparam.lr = 0.25
    model.c.update_rule.hyperparam.lr = 0.25
    for p in model.params():
        p.grad = numpy.ones(3, numpy.float32)
    opt.update()                 # (states made)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sgd._SharedStep, 'read', classmethod(counted))
        opt.update()
        assert len(reads) == 1
        model.a.update_rule.add_hook(lambda rule, param: None, name='h')
        del reads[:]
        opt.update()
        assert len(reads) == 2   # (a's hook ran: b reads them again)
    numpy.testing.assert_array_equal(model.b.array, 1 - 3 * 0.5)
    numpy.testing.assert_array_equal(model.c.array, 1 - 3 * 0.25)
