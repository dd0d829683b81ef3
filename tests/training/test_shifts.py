import pytest

from cpuframe.serializers import DictionarySerializer, NpzDeserializer
from cpuframe.training import extensions


def _run(ext, trainer, n, attr='lr'):
    """Values of the attribute after initialize and after each of n
    calls."""
    optimizer = trainer.updater.get_optimizer('main')
    ext.initialize(trainer)
    values = [getattr(optimizer, attr)]
    for _ in range(n):
        ext(trainer)
        values.append(getattr(optimizer, attr))
    return values


CASES = [
    ('exponential', lambda: extensions.ExponentialShift('lr', 0.5, init=2.0),
     [2.0, 1.0, 0.5, 0.25, 0.125]),
    ('exponential_target',
     lambda: extensions.ExponentialShift('lr', 0.5, init=2.0, target=0.3),
     [2.0, 1.0, 0.5, 0.3, 0.3]),
    ('exponential_up',
     lambda: extensions.ExponentialShift('lr', 2, init=1.0, target=5.0),
     [1.0, 2.0, 4.0, 5.0, 5.0]),
    ('linear', lambda: extensions.LinearShift('lr', (1.0, 2.0), (2, 4)),
     [1.0, 1.0, 1.0, 1.5, 2.0, 2.0]),
    ('step', lambda: extensions.StepShift('lr', 0.1, 2, init=1.0),
     [1.0, 1.0, 0.1, 0.1, 0.01]),
    ('step_target',
     lambda: extensions.StepShift('lr', 0.1, 2, init=1.0, target=0.05),
     [1.0, 1.0, 0.1, 0.1, 0.05]),
    ('polynomial', lambda: extensions.PolynomialShift('lr', 2, 4),
     [0.5, 0.28125, 0.125, 0.03125, 0.0, 0.0]),
    ('polynomial_target',
     lambda: extensions.PolynomialShift('lr', 2, 4, target=0.1),
     [0.5, 0.28125, 0.125, 0.1, 0.1, 0.1]),
    ('inverse', lambda: extensions.InverseShift('lr', 0.5, 2, init=1.0),
     [1.0, 1 / 2.25, 0.25, 1 / 6.25]),
    ('warmup', lambda: extensions.WarmupShift('lr', 0.0, 4, init=1.0),
     [0.0, 0.25, 0.5, 0.75, 1.0, 1.0]),
    ('multistep',
     lambda: extensions.MultistepShift('lr', 0.1, [2, 4], 1.0),
     [1.0, 1.0, 0.1, 0.1, 0.01, 0.01]),
]


@pytest.mark.parametrize('name,make,expected', CASES,
                         ids=[c[0] for c in CASES])
def test_shift_values(fake_trainer, fake_optimizer, name, make, expected):
    # PolynomialShift takes its initial value from the optimizer (0.5)
    trainer = fake_trainer(optimizer=fake_optimizer(lr=0.5))
    values = _run(make(), trainer, len(expected) - 1)
    assert values == pytest.approx(expected)


@pytest.mark.parametrize('name,make,expected', CASES,
                         ids=[c[0] for c in CASES])
def test_shift_resumes_from_its_state(fake_trainer, fake_optimizer, name,
                                      make, expected):
    trainer = fake_trainer(optimizer=fake_optimizer(lr=0.5))
    ext = make()
    _run(ext, trainer, 2)
    s = DictionarySerializer()
    ext.serialize(s)
    keys = {'_t'} if name in ('warmup', 'multistep') else {'_t',
                                                           '_last_value'}
    assert set(s.target) == keys

    fresh_trainer = fake_trainer(optimizer=fake_optimizer(lr=0.5))
    resumed = make()
    NpzDeserializer(s.target).load(resumed)
    values = _run(resumed, fresh_trainer, len(expected) - 3)
    assert values == pytest.approx(expected[2:])


def test_init_is_read_from_the_optimizer(fake_trainer, fake_optimizer):
    trainer = fake_trainer(optimizer=fake_optimizer(lr=0.8, momentum=0.5))
    assert _run(extensions.ExponentialShift('lr', 0.5), trainer, 2) == \
        pytest.approx([0.8, 0.4, 0.2])
    assert _run(extensions.StepShift('momentum', 2.0, 1), trainer, 2,
                'momentum') == pytest.approx([0.5, 1.0, 2.0])
    other = fake_optimizer(lr=3.0)
    ext = extensions.ExponentialShift('lr', 0.5, optimizer=other)
    ext.initialize(trainer)
    ext(trainer)
    # the main optimizer keeps what the first shift left
    assert other.lr == 1.5 and trainer.updater.get_optimizer('main').lr == 0.2


def test_warmup_leaves_the_value_to_others_afterwards(fake_trainer,
                                                      fake_optimizer):
    trainer = fake_trainer(optimizer=fake_optimizer(lr=1.0))
    opt = trainer.updater.get_optimizer('main')
    ext = extensions.WarmupShift('lr', 0.1, 2)
    _run(ext, trainer, 2)
    assert opt.lr == 1.0
    opt.lr = 0.3
    ext(trainer)
    assert opt.lr == 0.3


def test_bad_arguments():
    with pytest.raises(ValueError, match='ExponentialShift'):
        extensions.ExponentialShift('lr', -1)
    with pytest.raises(ValueError, match='InverseShift'):
        extensions.InverseShift('lr', -0.5, 1)
    with pytest.raises(ValueError, match='LinearShift'):
        extensions.LinearShift('lr', (1, 2), (3, 3))
    with pytest.raises(ValueError, match='StepShift'):
        extensions.StepShift('lr', 0.1, 0)
    with pytest.raises(ValueError, match='PolynomialShift'):
        extensions.PolynomialShift('lr', 1, 0)
    with pytest.raises(ValueError, match='WarmupShift'):
        extensions.WarmupShift('lr', 0.0, 0, 1.0)
