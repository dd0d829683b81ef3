"""Optimizer hooks against hand formulas, through SGD so that the change
of the parameter shows the gradient the hook left behind."""
import math

import numpy
import pytest

import cpuframe
from cpuframe import optimizer_hooks as H
from cpuframe import optimizers

LR = 0.1


def _setup(hook=None, timing='auto', seed=0):
    rng = numpy.random.RandomState(seed)
    link = cpuframe.Link()
    with link.init_scope():
        link.a = cpuframe.Parameter(rng.uniform(-1, 1, (3, 2))
                                    .astype(numpy.float32))
        link.b = cpuframe.Parameter(rng.uniform(-1, 1, (4,))
                                    .astype(numpy.float32))
    opt = optimizers.SGD(lr=LR).setup(link)
    if hook is not None:
        opt.add_hook(hook, timing=timing)
    return link, opt, rng


def _step(link, opt, rng, scale=1.0):
    grads = {}
    for name, p in link.namedparams():
        g = (rng.normal(0, scale, p.shape)).astype(numpy.float32)
        p.grad = g
        grads[name] = g.astype(numpy.float64)
    params = {n: p.array.astype(numpy.float64) for n, p in link.namedparams()}
    opt.update()
    return params, grads


def _check(link, expected):
    for name, p in link.namedparams():
        numpy.testing.assert_allclose(p.array, expected[name], rtol=1e-5,
                                      atol=1e-6, err_msg=name)


def test_weight_decay():
    link, opt, rng = _setup(H.WeightDecay(0.2))
    for _ in range(3):
        p, g = _step(link, opt, rng)
        _check(link, {n: p[n] - LR * (g[n] + 0.2 * p[n]) for n in p})


def test_lasso():
    link, opt, rng = _setup(H.Lasso(0.3))
    for _ in range(3):
        p, g = _step(link, opt, rng)
        _check(link, {n: p[n] - LR * (g[n] + 0.3 * numpy.sign(p[n]))
                      for n in p})


def test_gradient_hard_clipping():
    link, opt, rng = _setup(H.GradientHardClipping(-0.5, 0.25))
    for _ in range(3):
        p, g = _step(link, opt, rng)
        _check(link, {n: p[n] - LR * numpy.clip(g[n], -0.5, 0.25)
                      for n in p})


@pytest.mark.parametrize('scale', [0.01, 10.0])
def test_gradient_clipping_uses_global_norm(scale):
    threshold = 1.5
    link, opt, rng = _setup(H.GradientClipping(threshold))
    for _ in range(3):
        p, g = _step(link, opt, rng, scale)
        norm = math.sqrt(sum(float((v ** 2).sum()) for v in g.values()))
        rate = min(1.0, threshold / norm)
        assert (rate < 1) == (scale > 1)
        _check(link, {n: p[n] - LR * rate * g[n] for n in p})
    if scale > 1:  # the clipped gradients have exactly the threshold norm
        total = math.sqrt(sum(float((q.grad.astype(numpy.float64) ** 2)
                                    .sum()) for q in link.params()))
        assert total == pytest.approx(threshold, rel=1e-5)


def test_gradient_noise_custom_function_gets_rule():
    calls = []

    def noise(xp, shape, dtype, hook, rule):
        calls.append((xp, shape, dtype, hook, rule))
        return xp.full(shape, 0.5, dtype)

    hook = H.GradientNoise(eta=0.3, noise_func=noise)
    link, opt, rng = _setup(hook)
    p, g = _step(link, opt, rng)
    _check(link, {n: p[n] - LR * (g[n] + 0.5) for n in p})
    assert [c[1] for c in calls] == [(3, 2), (4,)]
    assert calls[0][0] is numpy and calls[0][2] == numpy.float32
    assert calls[0][3] is hook and calls[0][4] is link.a.update_rule


def test_gradient_noise_default_schedule():
    eta = 0.3
    link, opt, rng = _setup(H.GradientNoise(eta))
    for step in range(2):
        grads = {n: rng.normal(0, 1, q.shape).astype(numpy.float32)
                 for n, q in link.namedparams()}
        before = {n: q.array.astype(numpy.float64)
                  for n, q in link.namedparams()}
        for n, q in link.namedparams():
            q.grad = grads[n].copy()
        numpy.random.seed(step)
        opt.update()
        # 'pre' hooks run before the rules count this step: t == step
        std = math.sqrt(eta / (1 + step) ** 0.55)
        numpy.random.seed(step)
        for n, q in link.namedparams():
            noise = numpy.random.normal(0, std, q.shape).astype(numpy.float32)
            numpy.testing.assert_allclose(
                q.array, before[n] - LR * (grads[n] + noise), rtol=1e-5,
                atol=1e-6)


@pytest.mark.parametrize('threshold', [1e-2, 100.0])
def test_gradient_lars(threshold):
    wd, eps = 0.01, 1e-9
    link, opt, rng = _setup(H.GradientLARS(threshold, wd, eps))
    for _ in range(2):
        p, g = _step(link, opt, rng)
        expected = {}
        for n in p:
            pn, gn = numpy.linalg.norm(p[n]), numpy.linalg.norm(g[n])
            rate = pn / (eps + gn + wd * pn) if pn > threshold else 1.0
            expected[n] = p[n] - LR * rate * (g[n] + wd * p[n])
        _check(link, expected)


def test_post_timing_runs_after_update():
    link, opt, rng = _setup(H.WeightDecay(0.5), timing='post')
    p, g = _step(link, opt, rng)
    _check(link, {n: p[n] - LR * g[n] for n in p})  # update unaffected
    new = {n: q.array.astype(numpy.float64) for n, q in link.namedparams()}
    for n, q in link.namedparams():  # ...but the gradient was decayed after
        numpy.testing.assert_allclose(q.grad, g[n] + 0.5 * new[n], rtol=1e-5)


def test_hook_timing_attribute_decides_auto():
    hook = H.WeightDecay(0.1)
    hook.timing = 'post'
    link, opt, _ = _setup(hook)
    assert 'WeightDecay' in opt._post_update_hooks


def test_hook_on_one_update_rule_only():
    link, opt, rng = _setup()
    link.a.update_rule.add_hook(H.WeightDecay(0.2))
    p, g = _step(link, opt, rng)
    _check(link, {'/a': p['/a'] - LR * (g['/a'] + 0.2 * p['/a']),
                  '/b': p['/b'] - LR * g['/b']})
    link.a.update_rule.remove_hook('WeightDecay')
    p, g = _step(link, opt, rng)
    _check(link, {n: p[n] - LR * g[n] for n in p})


def test_hooks_run_in_registration_order():
    link, opt, rng = _setup()
    opt.add_hook(H.GradientHardClipping(-0.1, 0.1))
    opt.add_hook(H.WeightDecay(1.0))
    p, g = _step(link, opt, rng)
    _check(link, {n: p[n] - LR * (numpy.clip(g[n], -0.1, 0.1) + p[n])
                  for n in p})


@pytest.mark.parametrize('make, message', [
    (lambda: H.GradientHardClipping(1, -1),
     'GradientHardClipping: lower_bound must be <= upper_bound'),
    (lambda: H.GradientClipping(-1.0), 'GradientClipping: threshold must be'),
    (lambda: H.WeightDecay('0.1'), 'WeightDecay: rate must be a real number'),
    (lambda: H.Lasso(None), 'Lasso: rate must be a real number'),
    (lambda: H.GradientNoise(0.1, noise_func=3),
     'GradientNoise: noise_func must be callable'),
    (lambda: H.GradientLARS(eps=-1), 'GradientLARS: eps must be >= 0'),
])
def test_bad_arguments(make, message):
    with pytest.raises((TypeError, ValueError), match=message):
        make()


def test_hooks_skip_params_without_grad_or_data():
    for hook in (H.WeightDecay(0.1), H.Lasso(0.1), H.GradientNoise(0.1),
                 H.GradientHardClipping(-1, 1), H.GradientLARS()):
        p = cpuframe.Parameter(numpy.ones(3, numpy.float32))
        hook(None, p)  # no gradient: nothing to do, no error
        assert p.grad is None
        hook(None, cpuframe.Parameter(None))  # not initialized


def test_deprecated_aliases_in_optimizer_module():
    from cpuframe import optimizer
    with pytest.warns(DeprecationWarning):
        assert optimizer.WeightDecay is H.WeightDecay
    with pytest.raises(AttributeError):
        _ = optimizer.NoSuchHook
