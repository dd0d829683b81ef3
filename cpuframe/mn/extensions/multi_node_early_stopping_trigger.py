"""``MultiNodeEarlyStoppingTrigger``: early stopping that every rank
decides alike."""
from cpuframe.mn.extensions.observation_aggregator import (
    ObservationAggregator,
)
from cpuframe.training.triggers import EarlyStoppingTrigger


class MultiNodeEarlyStoppingTrigger:
    """An ``EarlyStoppingTrigger`` on the mean of ``monitor`` over the ranks.

    At each check (``check_trigger``) the values of ``monitor`` observed on
    every rank since the last check are averaged (``ObservationAggregator``,
    into ``monitor + suffix``) and that mean is what the early stopping
    compares, so every rank stops at the same iteration.  Arguments other
    than ``comm`` and ``suffix`` are ``EarlyStoppingTrigger``'s
    (``patients`` is accepted as an old name of ``patience``).
    """

    def __init__(self, comm, *, check_trigger=(1, 'epoch'),
                 monitor='main/loss', patience=None, mode='auto',
                 verbose=False, max_trigger=(100, 'epoch'),
                 suffix='_aggregated', **kwargs):
        monitor_aggregated = monitor + suffix
        self.actual_trigger = EarlyStoppingTrigger(
            check_trigger=check_trigger, monitor=monitor_aggregated,
            patience=patience, mode=mode, verbose=verbose,
            max_trigger=max_trigger, **kwargs)
        self.aggregator = ObservationAggregator(
            comm, monitor, aggregated_key=monitor_aggregated,
            comm_trigger=check_trigger)

    def __call__(self, trainer):
        self.aggregator(trainer)
        return self.actual_trigger(trainer)

    def _stop_condition(self):
        return self.actual_trigger._stop_condition()

    def _init_summary(self):
        return self.actual_trigger._init_summary()

    def get_training_length(self):
        return self.actual_trigger.get_training_length()
