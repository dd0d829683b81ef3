"""Optimizers driving real models: fitting a regression, and resuming from
an npz snapshot giving the same parameters as an uninterrupted run."""
import numpy
import pytest

import cpuframe
import cpuframe.functions as F
import cpuframe.links as L
from cpuframe import optimizer_hooks, optimizers, serializers


class _MLP(cpuframe.Chain):
    def __init__(self, n_hidden=16):
        super().__init__()
        rng = numpy.random.RandomState(3)
        with self.init_scope():
            self.l1 = L.Linear(2, n_hidden, initialW=rng.normal(
                0, 0.5, (n_hidden, 2)).astype(numpy.float32))
            self.l2 = L.Linear(n_hidden, 1, initialW=rng.normal(
                0, 0.25, (1, n_hidden)).astype(numpy.float32))

    def forward(self, x):
        return self.l2(F.tanh(self.l1(x)))


def _data(n=128, seed=0):
    rng = numpy.random.RandomState(seed)
    x = rng.uniform(-1, 1, (n, 2)).astype(numpy.float32)
    t = (0.8 * x[:, :1] - 0.5 * x[:, 1:] + 0.3 * x[:, :1] * x[:, 1:] + 0.1)
    return x, t.astype(numpy.float32)


def _loss(model, x, t):
    return F.mean_squared_error(model(x), t)


@pytest.mark.parametrize('make, steps', [
    (lambda: optimizers.MomentumSGD(lr=0.1, momentum=0.9), 300),
    (lambda: optimizers.Adam(alpha=0.02), 300),
], ids=['MomentumSGD', 'Adam'])
def test_regression_reaches_low_loss(make, steps):
    x, t = _data()
    model = _MLP()
    opt = make().setup(model)
    first = float(_loss(model, x, t).array)
    for _ in range(steps):
        opt.update(_loss, model, x, t)
    final = float(_loss(model, x, t).array)
    assert first > 0.1
    assert final < 2e-3, (first, final)


ALL = [
    lambda: optimizers.SGD(lr=0.1),
    lambda: optimizers.MomentumSGD(lr=0.1),
    lambda: optimizers.NesterovAG(lr=0.05),
    lambda: optimizers.CorrectedMomentumSGD(lr=0.05),
    lambda: optimizers.AdaGrad(lr=0.05),
    lambda: optimizers.AdaDelta(),
    lambda: optimizers.RMSprop(lr=0.01),
    lambda: optimizers.RMSpropGraves(lr=0.01),
    lambda: optimizers.SMORMS3(lr=0.01),
    lambda: optimizers.Adam(alpha=0.01),
    lambda: optimizers.AMSBound(alpha=0.01),
    lambda: optimizers.MSVAG(lr=0.1),
]
IDS = ['SGD', 'MomentumSGD', 'NesterovAG', 'CorrectedMomentumSGD', 'AdaGrad',
       'AdaDelta', 'RMSprop', 'RMSpropGraves', 'SMORMS3', 'Adam', 'AMSBound',
       'MSVAG']


def _run(make, model, opt, x, t, steps):
    for i in range(steps):
        sl = slice(16 * (i % 4), 16 * (i % 4) + 16)
        opt.update(_loss, model, x[sl], t[sl])


@pytest.mark.parametrize('make', ALL, ids=IDS)
def test_resume_from_npz_equals_uninterrupted(make, tmp_path):
    x, t = _data(64)

    def start():
        model = _MLP()
        opt = make().setup(model)
        opt.add_hook(optimizer_hooks.WeightDecay(1e-3))
        return model, opt

    ref, ref_opt = start()
    _run(make, ref, ref_opt, x, t, 4)
    _run(make, ref, ref_opt, x, t, 7)

    first, opt = start()
    _run(make, first, opt, x, t, 4)
    opt.new_epoch()
    serializers.save_npz(str(tmp_path / 'model.npz'), first)
    serializers.save_npz(str(tmp_path / 'opt.npz'), opt)

    resumed, opt2 = start()
    resumed.l1.W.array[...] = 0  # the load, not the seed, must restore it
    serializers.load_npz(str(tmp_path / 'model.npz'), resumed)
    serializers.load_npz(str(tmp_path / 'opt.npz'), opt2)
    assert opt2.t == 4 and opt2.epoch == 1
    for (_, p), (_, q) in zip(first.namedparams(), resumed.namedparams()):
        assert q.update_rule.t == p.update_rule.t == 4
        if p.update_rule.state:
            assert set(q.update_rule.state) == set(p.update_rule.state)
    _run(make, resumed, opt2, x, t, 7)
    for (name, p), (_, q) in zip(ref.namedparams(), resumed.namedparams()):
        numpy.testing.assert_array_equal(q.array, p.array, err_msg=name)


def test_load_into_existing_state_copies_in_place(tmp_path):
    x, t = _data(32)
    model = _MLP()
    opt = optimizers.Adam(alpha=0.01).setup(model)
    opt.update(_loss, model, x, t)
    serializers.save_npz(str(tmp_path / 'opt.npz'), opt)
    saved_m = model.l1.W.update_rule.state['m'].copy()
    opt.update(_loss, model, x, t)
    m = model.l1.W.update_rule.state['m']
    assert not numpy.array_equal(m, saved_m)
    serializers.load_npz(str(tmp_path / 'opt.npz'), opt)
    assert model.l1.W.update_rule.state['m'] is m
    numpy.testing.assert_array_equal(m, saved_m)
    assert opt.t == 1 and model.l1.W.update_rule.t == 1


def test_optimizer_npz_keys_follow_chainer_layout(tmp_path):
    model = _MLP()
    opt = optimizers.MomentumSGD().setup(model)
    serializers.save_npz(str(tmp_path / 'fresh.npz'), opt)
    with numpy.load(str(tmp_path / 'fresh.npz')) as f:
        assert sorted(f.files) == ['epoch', 'l1/W/t', 'l1/b/t', 'l2/W/t',
                                   'l2/b/t', 't']
    x, t = _data(8)
    opt.update(_loss, model, x, t)
    serializers.save_npz(str(tmp_path / 'opt.npz'), opt)
    with numpy.load(str(tmp_path / 'opt.npz')) as f:
        assert sorted(f.files) == [
            'epoch', 'l1/W/t', 'l1/W/v', 'l1/b/t', 'l1/b/v', 'l2/W/t',
            'l2/W/v', 'l2/b/t', 'l2/b/v', 't']
        assert int(f['t']) == 1


def test_failed_optimizer_load_leaves_state_untouched(tmp_path):
    x, t = _data(8)
    model = _MLP()
    opt = optimizers.Adam().setup(model)
    opt.update(_loss, model, x, t)
    d = serializers.DictionarySerializer()
    d.save(opt)
    del d.target['l2/b/v']
    numpy.savez(str(tmp_path / 'bad.npz'), **d.target)
    opt.update(_loss, model, x, t)
    before = {n: dict((k, v.copy()) for k, v in p.update_rule.state.items())
              for n, p in model.namedparams()}
    with pytest.raises(KeyError, match='l2/b/v'):
        serializers.load_npz(str(tmp_path / 'bad.npz'), opt)
    assert opt.t == 2
    for n, p in model.namedparams():
        assert p.update_rule.t == 2
        for k, v in p.update_rule.state.items():
            numpy.testing.assert_array_equal(v, before[n][k])


def test_snapshot_before_first_update_has_no_state(tmp_path):
    # As in Chainer: strict loading wants the state of enabled rules; with
    # strict=False (or a disabled rule) the state stays unset and is
    # created at the next update.
    opt = optimizers.Adam().setup(_MLP())
    serializers.save_npz(str(tmp_path / 'opt.npz'), opt)
    opt2 = optimizers.Adam().setup(_MLP())
    opt2.target.l2.disable_update()
    opt2.t = 5
    with pytest.raises(KeyError, match="'l1/W/m' not found"):
        serializers.load_npz(str(tmp_path / 'opt.npz'), opt2)
    assert opt2.t == 5  # the failed load changed nothing
    serializers.load_npz(str(tmp_path / 'opt.npz'), opt2, strict=False)
    assert opt2.t == 0
    assert all(p.update_rule.state is None for p in opt2.target.params())
    opt2.target.l1.disable_update()
    serializers.load_npz(str(tmp_path / 'opt.npz'), opt2)
