"""Constructor defaults (Chainer's) and bad hyperparameters."""
import numpy
import pytest

from cpuframe import optimizers

DEFAULTS = [
    (optimizers.SGD, dict(lr=0.01)),
    (optimizers.MomentumSGD, dict(lr=0.01, momentum=0.9)),
    (optimizers.NesterovAG, dict(lr=0.01, momentum=0.9)),
    (optimizers.CorrectedMomentumSGD, dict(lr=0.01, momentum=0.9)),
    (optimizers.AdaGrad, dict(lr=0.001, eps=1e-8)),
    (optimizers.AdaDelta, dict(rho=0.95, eps=1e-6)),
    (optimizers.RMSprop, dict(lr=0.01, alpha=0.99, eps=1e-8,
                              eps_inside_sqrt=False)),
    (optimizers.RMSpropGraves, dict(lr=1e-4, alpha=0.95, momentum=0.9,
                                    eps=1e-4)),
    (optimizers.SMORMS3, dict(lr=0.001, eps=1e-16)),
    (optimizers.Adam, dict(alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8,
                           eta=1.0, weight_decay_rate=0, amsgrad=False,
                           adabound=False, final_lr=0.1, gamma=1e-3)),
    (optimizers.MSVAG, dict(lr=0.1, beta=0.9, eta=1.0, weight_decay_rate=0)),
]


@pytest.mark.parametrize('cls, defaults', DEFAULTS,
                         ids=[c.__name__ for c, _ in DEFAULTS])
def test_defaults_and_proxies(cls, defaults):
    opt = cls()
    for name, value in defaults.items():
        assert getattr(opt.hyperparam, name) == value
        if not (cls is optimizers.Adam and name == 'lr'):
            assert getattr(opt, name) == value
    # the proxies write through to the hyperparameter
    name = next(iter(defaults))
    setattr(opt, name, 0.5)
    assert getattr(opt.hyperparam, name) == 0.5


@pytest.mark.parametrize('make, message', [
    (lambda: optimizers.SGD(lr=-0.1), r'SGD: lr must be >= 0'),
    (lambda: optimizers.SGD(lr='0.1'), r'SGD: lr must be a real number'),
    (lambda: optimizers.SGD(lr=None), r'SGD: lr must be a real number'),
    (lambda: optimizers.MomentumSGD(momentum=float('nan')),
     r'MomentumSGD: momentum must not be NaN'),
    (lambda: optimizers.AdaDelta(rho=1.5), r'AdaDelta: rho must be <= 1'),
    (lambda: optimizers.Adam(beta1=1.0), r'Adam: beta1 must be < 1'),
    (lambda: optimizers.AMSGrad(beta2=-0.1), r'AMSGrad: beta2 must be >= 0'),
    (lambda: optimizers.Adam(amsgrad='yes'), r'Adam: amsgrad must be a bool'),
    (lambda: optimizers.Adam(adabound=True, gamma=0),
     r'Adam: gamma must be > 0'),
    (lambda: optimizers.RMSprop(eps_inside_sqrt=1),
     r'RMSprop: eps_inside_sqrt must be a bool'),
    (lambda: optimizers.MSVAG(beta=1), r'MSVAG: beta must be < 1'),
])
def test_bad_hyperparameters_raise_naming_the_optimizer(make, message):
    with pytest.raises((TypeError, ValueError), match=message):
        make()


def test_numpy_scalars_are_accepted():
    opt = optimizers.Adam(alpha=numpy.float32(0.01), amsgrad=numpy.bool_(True))
    assert opt.alpha == numpy.float32(0.01)


def test_eps_too_small_for_dtype_raises():
    import cpuframe
    link = cpuframe.Link()
    with link.init_scope():
        link.p = cpuframe.Parameter(numpy.ones(2, numpy.float16))
    opt = optimizers.RMSprop(eps=1e-10).setup(link)
    link.p.grad = numpy.ones(2, numpy.float16)
    with pytest.raises(ValueError, match='RMSprop: eps 1e-10 is too small '
                                         'for float16'):
        opt.update()
