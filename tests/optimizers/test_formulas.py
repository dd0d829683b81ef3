"""Every optimizer against its update written out by hand in NumPy.

Each reference below is the paper's formula in float64, stepped alongside
the optimizer for several steps with changing gradients; the optimizer must
update ``param.array`` in place (same object) and keep its dtype.
"""
import math

import numpy
import pytest

import cpuframe
from cpuframe import optimizers


class _Model(cpuframe.Link):
    def __init__(self, rng, dtype=numpy.float32):
        super().__init__()
        with self.init_scope():
            self.w = cpuframe.Parameter(
                rng.uniform(-1, 1, (3, 4)).astype(dtype))
            self.b = cpuframe.Parameter(rng.uniform(-1, 1, (5,)).astype(dtype))


# -- hand-written references: step(state, p, g, t) -> new p (float64) -------
def _sgd(lr):
    def step(s, p, g, t):
        return p - lr * g
    return step


def _momentum_sgd(lr, momentum):
    def step(s, p, g, t):
        v = s.get('v', 0.0)
        v = momentum * v - lr * g
        s['v'] = v
        return p + v
    return step


def _nesterov_ag(lr, momentum):
    def step(s, p, g, t):
        v = momentum * s.get('v', 0.0) - lr * g
        s['v'] = v
        return p + momentum ** 2 * v - (1 + momentum) * lr * g
    return step


def _corrected_momentum_sgd(lr, momentum):
    def step(s, p, g, t):
        u = momentum * s.get('u', 0.0) - g
        s['u'] = u
        return p + lr * u
    return step


def _ada_grad(lr, eps):
    def step(s, p, g, t):
        h = s.get('h', 0.0) + g ** 2
        s['h'] = h
        return p - lr * g / (numpy.sqrt(h) + eps)
    return step


def _ada_delta(rho, eps):
    def step(s, p, g, t):
        msg = rho * s.get('msg', 0.0) + (1 - rho) * g ** 2
        dx = numpy.sqrt((s.get('msdx', 0.0) + eps) / (msg + eps)) * g
        s['msdx'] = rho * s.get('msdx', 0.0) + (1 - rho) * dx ** 2
        s['msg'] = msg
        return p - dx
    return step


def _rmsprop(lr, alpha, eps, inside):
    def step(s, p, g, t):
        ms = alpha * s.get('ms', 0.0) + (1 - alpha) * g ** 2
        s['ms'] = ms
        denom = numpy.sqrt(ms + eps) if inside else numpy.sqrt(ms) + eps
        return p - lr * g / denom
    return step


def _rmsprop_graves(lr, alpha, momentum, eps):
    def step(s, p, g, t):
        n = alpha * s.get('n', 0.0) + (1 - alpha) * g ** 2
        gbar = alpha * s.get('g', 0.0) + (1 - alpha) * g
        delta = momentum * s.get('d', 0.0) - lr * g / numpy.sqrt(
            n - gbar ** 2 + eps)
        s.update(n=n, g=gbar, d=delta)
        return p + delta
    return step


def _smorms3(lr, eps):
    def step(s, p, g, t):
        mem = s.get('mem', 1.0)
        r = 1 / (mem + 1)
        gbar = (1 - r) * s.get('g', 0.0) + r * g
        g2 = (1 - r) * s.get('g2', 0.0) + r * g ** 2
        x = gbar ** 2 / (g2 + eps)
        s.update(mem=1 + mem * (1 - x), g=gbar, g2=g2)
        return p - g * numpy.minimum(x, lr) / (numpy.sqrt(g2) + eps)
    return step


def _adam(alpha, beta1, beta2, eps, eta=1.0, wd=0.0, amsgrad=False,
          adabound=False, final_lr=0.1, gamma=1e-3):
    def step(s, p, g, t):
        m = s.get('m', 0.0) + (1 - beta1) * (g - s.get('m', 0.0))
        v = s.get('v', 0.0) + (1 - beta2) * (g ** 2 - s.get('v', 0.0))
        vhat = numpy.maximum(s.get('vhat', 0.0), v) if amsgrad else v
        s.update(m=m, v=v, vhat=vhat)
        # bias correction folded into the step size, as Chainer does
        alpha_t = alpha * math.sqrt(1 - beta2 ** t) / (1 - beta1 ** t)
        lr = alpha_t / (numpy.sqrt(vhat) + eps)
        if adabound:
            lower = final_lr * (1 - 1 / (gamma * t + 1))
            upper = final_lr * (1 + 1 / (gamma * t))
            lr = numpy.clip(lr, lower, upper)
        return p - eta * (lr * m + wd * p)
    return step


def _msvag(lr, beta, eta=1.0, wd=0.0):
    def step(s, p, g, t):
        m = beta * s.get('m', 0.0) + (1 - beta) * g
        v = beta * s.get('v', 0.0) + (1 - beta) * g ** 2
        s.update(m=m, v=v)
        mhat, vhat = m / (1 - beta ** t), v / (1 - beta ** t)
        rho = min((1 - beta) ** 2 * (1 - beta ** (2 * t)) /
                  ((1 - beta ** t) ** 2 * (1 - beta ** 2)), 0.9999)
        var = (vhat - mhat ** 2) / (1 - rho)
        with numpy.errstate(invalid='ignore', divide='ignore'):
            f = mhat ** 2 / (mhat ** 2 + rho * var)
        f = numpy.clip(numpy.nan_to_num(f, nan=0.0), 0, 1)
        return p - eta * (lr * mhat * f + wd * p)
    return step


CASES = [
    ('SGD', lambda: optimizers.SGD(lr=0.1), _sgd(0.1)),
    ('SGD-default', lambda: optimizers.SGD(), _sgd(0.01)),
    ('MomentumSGD', lambda: optimizers.MomentumSGD(lr=0.05, momentum=0.8),
     _momentum_sgd(0.05, 0.8)),
    ('MomentumSGD-default', lambda: optimizers.MomentumSGD(),
     _momentum_sgd(0.01, 0.9)),
    ('NesterovAG', lambda: optimizers.NesterovAG(lr=0.05, momentum=0.7),
     _nesterov_ag(0.05, 0.7)),
    ('CorrectedMomentumSGD',
     lambda: optimizers.CorrectedMomentumSGD(lr=0.05, momentum=0.8),
     _corrected_momentum_sgd(0.05, 0.8)),
    ('AdaGrad', lambda: optimizers.AdaGrad(lr=0.1, eps=1e-8),
     _ada_grad(0.1, 1e-8)),
    ('AdaGrad-default', lambda: optimizers.AdaGrad(), _ada_grad(0.001, 1e-8)),
    ('AdaDelta', lambda: optimizers.AdaDelta(rho=0.9, eps=1e-4),
     _ada_delta(0.9, 1e-4)),
    ('AdaDelta-default', lambda: optimizers.AdaDelta(),
     _ada_delta(0.95, 1e-6)),
    ('RMSprop', lambda: optimizers.RMSprop(lr=0.01, alpha=0.9, eps=1e-3),
     _rmsprop(0.01, 0.9, 1e-3, False)),
    ('RMSprop-inside', lambda: optimizers.RMSprop(
        lr=0.01, alpha=0.9, eps=1e-3, eps_inside_sqrt=True),
     _rmsprop(0.01, 0.9, 1e-3, True)),
    ('RMSprop-default', lambda: optimizers.RMSprop(),
     _rmsprop(0.01, 0.99, 1e-8, False)),
    ('RMSpropGraves', lambda: optimizers.RMSpropGraves(
        lr=0.01, alpha=0.9, momentum=0.8, eps=1e-2),
     _rmsprop_graves(0.01, 0.9, 0.8, 1e-2)),
    ('RMSpropGraves-default', lambda: optimizers.RMSpropGraves(),
     _rmsprop_graves(1e-4, 0.95, 0.9, 1e-4)),
    ('SMORMS3', lambda: optimizers.SMORMS3(lr=0.01, eps=1e-8),
     _smorms3(0.01, 1e-8)),
    ('SMORMS3-default', lambda: optimizers.SMORMS3(), _smorms3(0.001, 1e-16)),
    ('Adam', lambda: optimizers.Adam(alpha=0.01, beta1=0.8, beta2=0.9,
                                     eps=1e-6),
     _adam(0.01, 0.8, 0.9, 1e-6)),
    ('Adam-default', lambda: optimizers.Adam(),
     _adam(0.001, 0.9, 0.999, 1e-8)),
    ('AdamW', lambda: optimizers.Adam(alpha=0.01, eta=0.5,
                                      weight_decay_rate=0.1),
     _adam(0.01, 0.9, 0.999, 1e-8, eta=0.5, wd=0.1)),
    ('AdamW-class', lambda: optimizers.AdamW(alpha=0.01, eta=0.5,
                                             weight_decay_rate=0.1),
     _adam(0.01, 0.9, 0.999, 1e-8, eta=0.5, wd=0.1)),
    ('AMSGrad', lambda: optimizers.Adam(alpha=0.01, beta2=0.5, amsgrad=True),
     _adam(0.01, 0.9, 0.5, 1e-8, amsgrad=True)),
    ('AMSGrad-class', lambda: optimizers.AMSGrad(alpha=0.01, beta2=0.5),
     _adam(0.01, 0.9, 0.5, 1e-8, amsgrad=True)),
    ('AdaBound', lambda: optimizers.Adam(alpha=0.01, adabound=True,
                                         final_lr=0.05, gamma=0.1),
     _adam(0.01, 0.9, 0.999, 1e-8, adabound=True, final_lr=0.05, gamma=0.1)),
    ('AdaBound-class', lambda: optimizers.AdaBound(alpha=0.01, final_lr=0.05,
                                                   gamma=0.1),
     _adam(0.01, 0.9, 0.999, 1e-8, adabound=True, final_lr=0.05, gamma=0.1)),
    ('AMSBound-class', lambda: optimizers.AMSBound(
        alpha=0.01, beta2=0.5, final_lr=0.05, gamma=0.1),
     _adam(0.01, 0.9, 0.5, 1e-8, amsgrad=True, adabound=True, final_lr=0.05,
           gamma=0.1)),
    ('MSVAG', lambda: optimizers.MSVAG(lr=0.1, beta=0.8),
     _msvag(0.1, 0.8)),
    ('MSVAG-wd', lambda: optimizers.MSVAG(lr=0.1, beta=0.8, eta=0.5,
                                          weight_decay_rate=0.05),
     _msvag(0.1, 0.8, eta=0.5, wd=0.05)),
]


@pytest.mark.parametrize('make, reference',
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
def test_matches_hand_formula(make, reference, dtype):
    rng = numpy.random.RandomState(0)
    model = _Model(rng, dtype)
    opt = make().setup(model)
    arrays = {name: p.array for name, p in model.namedparams()}
    expected = {name: p.array.astype(numpy.float64)
                for name, p in model.namedparams()}
    states = {name: {} for name in expected}
    for t in range(1, 6):
        for name, p in model.namedparams():
            g = rng.normal(0, 1, p.shape)
            if t == 3:
                g[0] = 0  # a zero gradient entry on the way
            p.grad = g.astype(dtype)
            expected[name] = reference(states[name], expected[name],
                                       g.astype(dtype).astype(numpy.float64), t)
        opt.update()
        assert opt.t == t
        for name, p in model.namedparams():
            assert p.array is arrays[name], 'the update replaced param.array'
            assert p.array.dtype == dtype
            assert p.update_rule.t == t
            tol = 1e-5 if dtype == numpy.float32 else 1e-12
            if dtype == numpy.float32 and isinstance(opt, optimizers.MSVAG):
                # v - m**2 cancels catastrophically in float32 while the
                # moments are young; float64 checks the formula tightly.
                tol = 1e-3
            numpy.testing.assert_allclose(p.array, expected[name], rtol=tol,
                                          atol=tol, err_msg=name)


@pytest.mark.parametrize('make', [c[1] for c in CASES[::3]],
                         ids=[c[0] for c in CASES[::3]])
def test_param_without_grad_is_left_alone(make):
    rng = numpy.random.RandomState(1)
    model = _Model(rng)
    opt = make().setup(model)
    before = model.b.array.copy()
    model.w.grad = rng.normal(0, 1, (3, 4)).astype(numpy.float32)
    model.b.update_rule.update(model.b)  # no gradient: nothing to do
    numpy.testing.assert_array_equal(model.b.array, before)
    assert model.b.update_rule.t == 1  # the step is still counted
    del opt
