"""Triggers that fire when a reported value reaches its best so far."""
from cpuframe import reporter
from cpuframe.training import util


class BestValueTrigger:
    """Fires when the mean of ``key`` over each ``trigger`` interval is
    better (``compare(best, new)`` is True) than every earlier mean."""

    def __init__(self, key, compare, trigger=(1, 'epoch')):
        self._key = key
        self._best_value = None
        self._interval_trigger = util.get_trigger(trigger)
        self._compare = compare
        self._init_summary()

    def __call__(self, trainer):
        observation = trainer.observation
        key = self._key
        if key in observation:
            self._summary.add({key: observation[key]})
        if not self._interval_trigger(trainer):
            return False
        stats = self._summary.compute_mean()
        if key not in stats:
            raise KeyError(
                '{}: key {!r} not found in the observation (available keys: '
                '{})'.format(type(self).__name__, key, sorted(stats)))
        value = float(stats[key])
        self._init_summary()
        if self._best_value is None or self._compare(self._best_value, value):
            self._best_value = value
            return True
        return False

    def _init_summary(self):
        self._summary = reporter.DictSummary()

    def serialize(self, serializer):
        if hasattr(self._interval_trigger, 'serialize'):
            self._interval_trigger.serialize(serializer['interval_trigger'])
        self._summary.serialize(serializer['summary'])
        best = serializer('best_value', self._best_value)
        self._best_value = None if best is None else float(best)


class MaxValueTrigger(BestValueTrigger):
    """Fires when the mean of ``key`` reaches a new maximum."""

    def __init__(self, key, trigger=(1, 'epoch')):
        super().__init__(key, lambda best, new: new > best, trigger)


class MinValueTrigger(BestValueTrigger):
    """Fires when the mean of ``key`` reaches a new minimum."""

    def __init__(self, key, trigger=(1, 'epoch')):
        super().__init__(key, lambda best, new: new < best, trigger)
