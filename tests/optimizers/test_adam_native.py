"""Adam's native one-pass update (csrc/optimizer.cpp) against its NumPy
code: the same float32 operations in the same order, so parameters and
moments agree bit for bit, also on NaN, infinities, huge and denormal
values; layouts and modes the kernel does not take fall back to NumPy."""
import operator

import numpy
import pytest

import cpuframe
from cpuframe.backends import intel64
from cpuframe.optimizers import adam

pytestmark = pytest.mark.skipif(
    not intel64.is_ideep_available(), reason='native module unavailable')


def _same(a, b):
    # equal values, NaN where NaN (payloads aside)
    return numpy.array_equal(a, b, equal_nan=True) and \
        numpy.array_equal(numpy.signbit(a), numpy.signbit(b))


class _Rule:
    def __init__(self, alpha_t):
        self.alpha_t = alpha_t


class _HP:
    def __init__(self, rng, weight_decay):
        self.beta1 = float(rng.random())
        self.beta2 = float(rng.random())
        self.eps = float(10.0 ** rng.integers(-12, 0))
        self.weight_decay_rate = float(rng.random()) if weight_decay else 0
        self.eta = float(rng.random() * 2)


@pytest.mark.parametrize('seed', range(40))
def test_kernel_is_the_numpy_code_bit_for_bit(seed, kernel_isa):
    rng = numpy.random.default_rng(seed)
    # sizes below and across a vector's width, and long rows
    n = int(rng.integers(1, 40)) if seed % 4 == 0 else \
        int(rng.integers(1, 3000))
    arrays = []
    for k in range(4):
        a = (rng.standard_normal(n) * 10.0 ** rng.integers(-40, 39)).astype(
            numpy.float32)
        if k == 3:
            a = numpy.abs(a)                 # v >= 0
        picks = rng.integers(0, n, size=4)
        a[picks[0]] = numpy.nan if k != 3 or seed % 2 else 0
        a[picks[1]] = numpy.inf
        a[picks[2]] = -3e38 if k != 3 else 3e38
        a[picks[3]] = 1e-42                  # denormal
        arrays.append(a)
    hp, alpha_t = _HP(rng, seed % 2), float(rng.random())
    expect = [a.copy() for a in arrays]
    got = [a.copy() for a in arrays]
    with numpy.errstate(all='ignore'):
        adam.AdamRule._update_in_place(_Rule(alpha_t), *expect, hp)
    assert adam._native_kernel()(
        got[0], got[1], got[2], got[3], 1 - hp.beta1, 1 - hp.beta2, hp.eps,
        alpha_t, hp.weight_decay_rate, hp.eta)
    for e, g in zip(expect, got):
        assert _same(e, g)


def test_kernel_declines_what_it_does_not_take():
    kernel = adam._native_kernel()
    f = numpy.ones(8, numpy.float32)
    args = (0.1, 0.001, 1e-8, 0.01, 0.0, 1.0)
    assert not kernel(f.copy()[::2], f[:4], f[:4].copy(), f[:4].copy(), *args)
    assert not kernel(f.astype(numpy.float64), f, f.copy(), f.copy(), *args)
    ro = f.copy()
    ro.flags.writeable = False
    assert not kernel(ro, f, f.copy(), f.copy(), *args)
    assert not kernel(f.copy(), f[:4], f.copy(), f.copy(), *args)
    assert (ro == 1).all()
    # one buffer in two roles (NumPy's in-place order would differ)
    p, m = f.copy(), f.copy()
    assert not kernel(p, f, m, m, *args)
    assert not kernel(p, p, m, f.copy(), *args)
    assert (p == 1).all() and (m == 1).all()


def _train(native, monkeypatch, **adam_kwargs):
    monkeypatch.setattr(adam, '_kernel', [] if native else [None])
    rng = numpy.random.default_rng(0)
    model = cpuframe.links.Linear(5, 3, initialW=rng.standard_normal((3, 5)))
    model.add_param('strided', (4, 6))
    model.strided.array[...] = 1
    opt = cpuframe.optimizers.Adam(**adam_kwargs).setup(model)
    for _ in range(4):
        x = rng.standard_normal((7, 5)).astype(numpy.float32)
        model.cleargrads()
        loss = cpuframe.functions.sum(model(x) ** 2)
        loss.backward()
        model.strided.grad = numpy.asfortranarray(   # not C-contiguous
            rng.standard_normal((4, 6)).astype(numpy.float32))
        opt.update()
    return [p.array.copy() for _, p in sorted(model.namedparams())] + [
        numpy.asarray(v).copy() for _, p in sorted(model.namedparams())
        for _, v in sorted(p.update_rule.state.items())]


@pytest.mark.parametrize('kwargs', [{}, {'weight_decay_rate': 0.01, 'eta': 0.5},
                                    {'amsgrad': True}])
def test_training_matches_the_numpy_path(kwargs, monkeypatch):
    native = _train(True, monkeypatch, **kwargs)
    numpy_path = _train(False, monkeypatch, **kwargs)
    for a, b in zip(native, numpy_path):
        assert _same(a, b)


def test_numpy_errors_set_to_raise_keep_the_numpy_path():
    model = cpuframe.links.Linear(2, 2)
    opt = cpuframe.optimizers.Adam().setup(model)
    model.cleargrads()
    cpuframe.functions.sum(model(numpy.ones((1, 2), numpy.float32))).backward()
    opt.update()                                     # state made
    model.W.grad = numpy.full((2, 2), 3e38, numpy.float32)
    with numpy.errstate(over='raise'):
        with pytest.raises(FloatingPointError):
            opt.update()


def _train_with_overrides(native, monkeypatch):
    # per-parameter values over the optimizer's (a rule's own Hyperparameter
    # whose parent is the optimizer's), changed between steps as a schedule
    # would change them
    monkeypatch.setattr(adam, '_kernel', [] if native else [None])
    rng = numpy.random.default_rng(3)
    model = cpuframe.links.Linear(4, 3, initialW=rng.standard_normal((3, 4)))
    opt = cpuframe.optimizers.Adam(alpha=0.01).setup(model)
    model.W.update_rule.hyperparam.alpha = 0.2
    model.b.update_rule.hyperparam.eps = 1e-3
    for step in range(4):
        if step == 2:
            opt.alpha = 0.05          # reaches b (no own alpha), not W
            model.W.update_rule.hyperparam.beta1 = 0.5
        x = rng.standard_normal((5, 4)).astype(numpy.float32)
        model.cleargrads()
        cpuframe.functions.sum(model(x) ** 2).backward()
        opt.update()
    return [model.W.array.copy(), model.b.array.copy()]


def test_per_parameter_hyperparameters_match_the_numpy_path(monkeypatch):
    native = _train_with_overrides(True, monkeypatch)
    numpy_path = _train_with_overrides(False, monkeypatch)
    for a, b in zip(native, numpy_path):
        assert _same(a, b)


def test_values_reads_the_chain_as_getattr_does():
    parent = cpuframe.optimizer.Hyperparameter()
    parent.alpha, parent.beta1 = 1.0, 0.9
    child = cpuframe.optimizer.Hyperparameter(parent)
    child.alpha = 2.0
    grandchild = cpuframe.optimizer.Hyperparameter(child)
    get = operator.itemgetter('alpha', 'beta1')
    assert adam._values(grandchild, get) == (2.0, 0.9)
    assert adam._values(parent, get) == (1.0, 0.9)
    assert adam._values(child, operator.itemgetter('alpha', 'eta')) is None


def test_numpy_raises_follows_the_error_state():
    assert not adam._numpy_raises()
    assert not adam._numpy_raises()          # (the kept answer)
    with numpy.errstate(invalid='raise'):
        assert adam._numpy_raises()
        with numpy.errstate(invalid='ignore'):
            assert not adam._numpy_raises()
        assert adam._numpy_raises()
    assert not adam._numpy_raises()
    old = numpy.seterr(divide='call')
    try:
        assert adam._numpy_raises()
    finally:
        numpy.seterr(**old)
    assert not adam._numpy_raises()
