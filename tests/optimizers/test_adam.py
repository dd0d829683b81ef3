"""Adam specifics: alpha_t, the deprecated lr, AdaBound's bounds, float16."""
import math
import warnings

import numpy
import pytest

import cpuframe
from cpuframe import optimizers


def _link(*arrays):
    link = cpuframe.Link()
    with link.init_scope():
        for i, a in enumerate(arrays):
            setattr(link, 'p{}'.format(i), cpuframe.Parameter(a))
    return link


def test_alpha_t_is_bias_corrected_step_size():
    opt = optimizers.Adam(alpha=0.01, beta1=0.8, beta2=0.9)
    opt.setup(_link(numpy.zeros(2, numpy.float32)))
    with pytest.raises(RuntimeError, match='t == 0'):
        _ = opt.alpha_t
    for t in (1, 2, 7):
        opt.t = t
        expected = 0.01 * math.sqrt(1 - 0.9 ** t) / (1 - 0.8 ** t)
        assert opt.alpha_t == pytest.approx(expected, rel=1e-12)
        with pytest.warns(DeprecationWarning):
            assert opt.lr == pytest.approx(expected, rel=1e-12)


def test_rule_alpha_t_follows_rule_t():
    p = numpy.ones(3, numpy.float32)
    link = _link(p)
    opt = optimizers.Adam(alpha=0.1).setup(link)
    link.p0.grad = numpy.ones(3, numpy.float32)
    opt.update()
    opt.update()
    rule = link.p0.update_rule
    assert rule.t == 2
    assert rule.alpha_t == pytest.approx(
        0.1 * math.sqrt(1 - 0.999 ** 2) / (1 - 0.9 ** 2))
    with pytest.warns(DeprecationWarning):
        assert rule.lr == rule.alpha_t


def test_adabound_bounds_by_hand_and_follow_alpha_changes():
    link = _link(numpy.ones(3, numpy.float32))
    opt = optimizers.AdaBound(alpha=0.01, final_lr=0.2, gamma=0.5).setup(link)
    rule = link.p0.update_rule
    with pytest.raises(RuntimeError, match='t == 0'):
        _ = rule.bounds
    rule.t = 3
    lower, upper = rule.bounds
    assert lower == pytest.approx(0.2 * (1 - 1 / (0.5 * 3 + 1)))
    assert upper == pytest.approx(0.2 * (1 + 1 / (0.5 * 3)))
    # halving alpha (e.g. by a schedule) halves the final learning rate
    opt.alpha = 0.005
    lower2, upper2 = rule.bounds
    assert lower2 == pytest.approx(lower / 2)
    assert upper2 == pytest.approx(upper / 2)


def test_amsgrad_keeps_max_of_second_moment():
    link = _link(numpy.zeros(1, numpy.float32))
    opt = optimizers.AMSGrad(alpha=0.1, beta2=0.5).setup(link)
    for g in (4.0, 0.0, 0.0):
        link.p0.grad = numpy.array([g], numpy.float32)
        opt.update()
    state = link.p0.update_rule.state
    # v = 0.5 * v + 0.5 * g**2: 8, 4, 2; vhat stays at the max
    assert float(state['v'][0]) == pytest.approx(2.0)
    assert float(state['vhat'][0]) == pytest.approx(8.0)


def test_amsgrad_switched_on_after_first_update():
    link = _link(numpy.zeros(2, numpy.float32))
    opt = optimizers.Adam(alpha=0.1).setup(link)
    link.p0.grad = numpy.ones(2, numpy.float32)
    opt.update()
    opt.amsgrad = True
    opt.update()
    assert 'vhat' in link.p0.update_rule.state


def test_per_param_alpha_override():
    link = _link(numpy.zeros(2, numpy.float32), numpy.zeros(2, numpy.float32))
    opt = optimizers.Adam(alpha=0.1).setup(link)
    link.p1.update_rule.hyperparam.alpha = 0.3
    for p in link.params():
        p.grad = numpy.ones(2, numpy.float32)
    opt.update()
    # first Adam step moves by alpha * g / (|g| + eps) ~= alpha
    numpy.testing.assert_allclose(link.p0.array, -0.1, rtol=1e-5)
    numpy.testing.assert_allclose(link.p1.array, -0.3, rtol=1e-5)


def test_float16_uses_float32_intermediates():
    # eps=1e-8 vanishes in float16; the update must still be finite.
    link = _link(numpy.ones(4, numpy.float16))
    data = link.p0.array
    opt = optimizers.Adam(alpha=0.01).setup(link)
    link.p0.grad = numpy.full(4, 0.5, numpy.float16)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        opt.update()
    assert link.p0.array is data and data.dtype == numpy.float16
    numpy.testing.assert_allclose(data, 1 - 0.01, rtol=1e-3)


def test_convenience_classes_set_flags():
    assert optimizers.AdamW(weight_decay_rate=0.1).weight_decay_rate == 0.1
    a = optimizers.AMSGrad()
    assert a.amsgrad and not a.adabound
    b = optimizers.AdaBound(final_lr=0.3)
    assert b.adabound and not b.amsgrad and b.final_lr == 0.3
    c = optimizers.AMSBound(gamma=0.01)
    assert c.adabound and c.amsgrad and c.gamma == 0.01
    for cls in (optimizers.AdamW, optimizers.AMSGrad, optimizers.AdaBound,
                optimizers.AMSBound):
        assert issubclass(cls, optimizers.Adam)
