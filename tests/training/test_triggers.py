import numpy
import pytest

from cpuframe import training
from cpuframe.serializers import DictionarySerializer, NpzDeserializer
from cpuframe.training import triggers


def _fire_iterations(trigger, trainer, n, observations=None):
    fired = []
    for i in range(1, n + 1):
        trainer.step(observations(i) if observations else None)
        if trigger(trainer):
            fired.append(i)
    return fired


@pytest.mark.parametrize('period,unit,ipe,expected', [
    (3, 'iteration', 4, [3, 6, 9, 12]),
    (1, 'epoch', 4, [4, 8, 12]),
    (2, 'epoch', 3, [6, 12]),
    (0.5, 'epoch', 4, [2, 4, 6, 8, 10, 12]),
    (1, 'epoch', 5, [5, 10]),
])
def test_interval_trigger(fake_trainer, period, unit, ipe, expected):
    trigger = triggers.IntervalTrigger(period, unit)
    assert _fire_iterations(trigger, fake_trainer(ipe), 12) == expected
    assert trigger.get_training_length() == (period, unit)
    assert str(trigger) == "IntervalTrigger({}, '{}')".format(period, unit)


def test_interval_trigger_epoch_with_uneven_batches(fake_trainer):
    # 2.5 iterations per epoch: epoch_detail 0.4, 0.8, 1.2, 1.6, 2.0, 2.4
    trainer = fake_trainer()
    trigger = triggers.IntervalTrigger(1, 'epoch')
    fired = []
    for i in range(1, 8):
        trainer.updater.iteration = i
        trainer.updater.iters_per_epoch = 2.5
        if trigger(trainer):
            fired.append(i)
    assert fired == [3, 5]


def test_interval_trigger_bad_arguments():
    with pytest.raises(ValueError, match="'epoch' or 'iteration'"):
        triggers.IntervalTrigger(1, 'epochs')
    with pytest.raises(ValueError, match='positive period'):
        triggers.IntervalTrigger(0, 'epoch')


def test_interval_trigger_resume(fake_trainer):
    trainer = fake_trainer(4)
    trigger = triggers.IntervalTrigger(3, 'iteration')
    assert _fire_iterations(trigger, trainer, 4) == [3]
    s = DictionarySerializer()
    trigger.serialize(s)
    assert set(s.target) == {'previous_iteration', 'previous_epoch_detail'}
    resumed = triggers.IntervalTrigger(3, 'iteration')
    resumed.serialize(NpzDeserializer(s.target))
    fired = []
    for i in range(5, 10):
        trainer.step()
        if resumed(trainer):
            fired.append(i)
    assert fired == [6, 9]


def test_get_trigger():
    assert isinstance(training.get_trigger((2, 'epoch')),
                      triggers.IntervalTrigger)
    def f(trainer):
        return True

    assert training.get_trigger(f) is f
    assert training.get_trigger(None)(None) is False
    with pytest.raises(TypeError, match='period, unit'):
        training.get_trigger('epoch')
    assert training.trigger.IntervalTrigger is triggers.IntervalTrigger


def test_manual_schedule_trigger(fake_trainer):
    trigger = triggers.ManualScheduleTrigger([2, 5, 7], 'iteration')
    trainer = fake_trainer(4)
    fired = []
    for i in range(1, 10):
        trainer.step()
        if trigger(trainer):
            fired.append(i)
        if i == 6:
            assert not trigger.finished
    assert fired == [2, 5, 7] and trigger.finished

    trigger = triggers.ManualScheduleTrigger(1.5, 'epoch')
    assert _fire_iterations(trigger, fake_trainer(2), 5) == [3]
    with pytest.raises(ValueError, match='unit'):
        triggers.ManualScheduleTrigger([1], 'step')


def test_manual_schedule_trigger_serialize(fake_trainer):
    trainer = fake_trainer(4)
    trigger = triggers.ManualScheduleTrigger([2, 3], 'iteration')
    _fire_iterations(trigger, trainer, 3)
    s = DictionarySerializer()
    trigger.serialize(s)
    assert set(s.target) == {'previous_iteration', 'previous_epoch_detail',
                             'finished'}
    other = triggers.ManualScheduleTrigger([2, 3], 'iteration')
    other.serialize(NpzDeserializer(s.target))
    assert other.finished is True


@pytest.mark.parametrize('cls,values,expected', [
    (triggers.MinValueTrigger, [3.0, 1.0, 2.0, 0.5, 0.5], [1, 2, 4]),
    (triggers.MaxValueTrigger, [3.0, 1.0, 4.0, 4.0, 5.0], [1, 3, 5]),
])
def test_min_max_value_triggers(fake_trainer, cls, values, expected):
    # one check per epoch of 2 iterations; the epoch mean is compared
    trainer = fake_trainer(2)
    trigger = cls('v', trigger=(1, 'epoch'))
    fired = []
    for epoch, v in enumerate(values, 1):
        for offset in (-1.0, 1.0):     # mean of the two reports is v
            trainer.step({'v': v + offset})
            if trigger(trainer):
                fired.append(epoch)
    assert fired == expected


def test_best_value_trigger_custom_compare_and_missing_key(fake_trainer):
    trainer = fake_trainer(1)
    trigger = triggers.BestValueTrigger(
        'v', lambda best, new: abs(new) < abs(best), trigger=(1, 'iteration'))
    fired = _fire_iterations(trigger, trainer, 4,
                             lambda i: {'v': [-5, 3, -4, 1][i - 1]})
    assert fired == [1, 2, 4]
    trigger = triggers.MaxValueTrigger('missing', trigger=(1, 'iteration'))
    trainer.step({'other': 1})
    with pytest.raises(KeyError, match='missing'):
        trigger(trainer)


def test_best_value_trigger_serialize(fake_trainer):
    trainer = fake_trainer(1)
    trigger = triggers.MaxValueTrigger('v', trigger=(1, 'iteration'))
    _fire_iterations(trigger, trainer, 2, lambda i: {'v': float(i)})
    s = DictionarySerializer()
    trigger.serialize(s)
    assert {'best_value', 'interval_trigger/previous_iteration',
            'summary/_names'} <= set(s.target)
    other = triggers.MaxValueTrigger('v', trigger=(1, 'iteration'))
    other.serialize(NpzDeserializer(s.target))
    assert other._best_value == 2.0
    trainer.step({'v': 1.5})
    assert not other(trainer)
    trainer.step({'v': 2.5})
    assert other(trainer)


def _run_early_stopping(fake_trainer, losses, **kwargs):
    trainer = fake_trainer(1)
    trigger = triggers.EarlyStoppingTrigger(
        check_trigger=(1, 'epoch'), **kwargs)
    for i, loss in enumerate(losses, 1):
        trainer.step({'main/loss': loss, 'main/accuracy': -loss})
        if trigger(trainer):
            return i, trigger
    return None, trigger


def test_early_stopping_trigger(fake_trainer):
    # best 1.0 at epoch 2; three checks without improvement -> stop at 5
    stop, trigger = _run_early_stopping(
        fake_trainer, [2.0, 1.0, 1.5, 1.2, 1.1, 0.1], patience=3)
    assert stop == 5 and trigger.best == 1.0 and trigger.count == 3
    stop, _ = _run_early_stopping(fake_trainer, [3, 2, 1, 0.5, 0.2],
                                  patience=1)
    assert stop is None
    stop, _ = _run_early_stopping(fake_trainer, [3, 2, 1, 0.5, 0.2],
                                  patience=1, max_trigger=(3, 'epoch'))
    assert stop == 3
    # 'accuracy' in the key: larger is better (mode auto)
    stop, trigger = _run_early_stopping(
        fake_trainer, [0.5, 1.0, 2.0, 0.1], monitor='main/accuracy',
        patience=2)
    assert stop == 3 and trigger.best == -0.5
    stop, trigger = _run_early_stopping(
        fake_trainer, [1.0, 2.0, 3.0], mode='max', patients=1)
    assert stop is None and trigger.patience == 1
    assert trigger.get_training_length() == (100, 'epoch')


def test_early_stopping_trigger_bad_arguments():
    with pytest.raises(TypeError, match='patients'):
        triggers.EarlyStoppingTrigger(patience=2, patients=3)
    with pytest.raises(ValueError, match='mode'):
        triggers.EarlyStoppingTrigger(mode='lowest')


def test_early_stopping_as_stop_trigger(counting_updater, tmp_path):
    losses = [5, 4, 3, 3.5, 3.2, 3.1, 1, 1]
    updater = counting_updater(
        iters_per_epoch=2,
        values=lambda i: {'main/loss': float(losses[(i - 1) // 2])})
    trainer = training.Trainer(
        updater, triggers.EarlyStoppingTrigger(patience=2), out=str(tmp_path))
    trainer.run()
    # epoch means 5, 4, 3, 3.5, 3.2: two checks without improvement
    assert trainer.updater.epoch == 5


def test_time_trigger_with_a_fake_clock(fake_trainer):
    trainer = fake_trainer(1)
    trigger = triggers.TimeTrigger(10.0)
    fired = []
    for now in [0.0, 5.0, 9.9, 10.0, 10.1, 15.0, 20.5, 35.0, 36.0]:
        trainer.elapsed_time = now
        if trigger(trainer):
            fired.append(now)
    # fires at most once per call: 35.0 catches up one period only
    assert fired == [10.1, 20.5, 35.0]
    s = DictionarySerializer()
    trigger.serialize(s)
    assert float(s.target['next_time']) == 40.0
    other = triggers.TimeTrigger(10.0)
    other.serialize(NpzDeserializer(s.target))
    trainer.elapsed_time = 39.0
    assert not other(trainer)
    trainer.elapsed_time = 40.5
    assert other(trainer)
    with pytest.raises(ValueError, match='positive'):
        triggers.TimeTrigger(0)


def test_time_trigger_in_a_trainer(counting_updater, tmp_path, monkeypatch):
    from cpuframe.training import trainer as trainer_module
    clock = [0.0]
    monkeypatch.setattr(trainer_module, '_get_time', lambda: clock[0])

    class TickingUpdater(counting_updater):
        def update(self):
            super().update()
            clock[0] += 1.0

    trainer = training.Trainer(TickingUpdater(), (10, 'iteration'),
                               out=str(tmp_path))
    calls = []
    trainer.extend(lambda t: calls.append(t.updater.iteration), name='x',
                   trigger=triggers.TimeTrigger(3.0))
    trainer.run()
    assert calls == [4, 7, 10]


def test_once_trigger(fake_trainer):
    trainer = fake_trainer(1)
    trigger = triggers.OnceTrigger()
    assert not trigger.finished
    assert _fire_iterations(trigger, trainer, 3) == [1]
    assert trigger.finished
    resumed = triggers.OnceTrigger(call_on_resume=True)
    s = DictionarySerializer()
    trigger.serialize(s)
    resumed.serialize(NpzDeserializer(s.target))
    assert _fire_iterations(resumed, trainer, 2) == [1]
    assert numpy.asarray(s.target['_flag_first']).dtype == bool
