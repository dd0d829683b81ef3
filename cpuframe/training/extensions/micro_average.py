"""MicroAverage: a ratio of sums over reported numerators and
denominators."""
from cpuframe import reporter
from cpuframe.training import extension, util


class MicroAverage(extension.Extension):
    """Sums the reported ``numerator_key`` and ``denominator_key`` values
    and, each time ``trigger`` fires, reports ``sum(n) / sum(d)`` as
    ``result_key`` (e.g. correct / total = accuracy over unequal
    batches)."""

    priority = extension.PRIORITY_EDITOR

    def __init__(self, numerator_key, denominator_key, result_key,
                 trigger=(1, 'epoch')):
        self._trigger = util.get_trigger(trigger)
        self._numerator_key = numerator_key
        self._denominator_key = denominator_key
        self._result_key = result_key
        self._numerator = 0
        self._denominator = 0

    def __call__(self, trainer):
        observation = trainer.observation
        if not (self._numerator_key in observation and
                self._denominator_key in observation):
            return
        self._numerator += observation[self._numerator_key]
        self._denominator += observation[self._denominator_key]
        if self._trigger(trainer):
            result = float(self._numerator) / float(self._denominator)
            self._numerator = 0
            self._denominator = 0
            reporter.report({self._result_key: result})

    def serialize(self, serializer):
        self._numerator = serializer('_numerator', self._numerator)
        self._denominator = serializer('_denominator', self._denominator)
