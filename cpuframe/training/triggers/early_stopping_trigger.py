"""EarlyStoppingTrigger: stop training when a monitored value stalls."""
import operator
import warnings

from cpuframe import reporter
from cpuframe.training import util


class EarlyStoppingTrigger:
    """A stop trigger that fires when ``monitor`` has not improved for
    ``patience`` checks (made at ``check_trigger``), or at ``max_trigger``.

    ``mode`` is ``'max'``, ``'min'`` or ``'auto'`` (max when the key
    contains ``'accuracy'``, min otherwise).  ``patients`` is accepted as
    an alias of ``patience``, as in Chainer.
    """

    def __init__(self, check_trigger=(1, 'epoch'), monitor='main/loss',
                 patience=None, mode='auto', verbose=False,
                 max_trigger=(100, 'epoch'), **kwargs):
        patients = kwargs.pop('patients', None)
        if kwargs:
            raise TypeError(
                'EarlyStoppingTrigger: unexpected keyword arguments {}'.format(
                    ', '.join(sorted(kwargs))))
        if patients is not None and patience is not None:
            raise TypeError(
                "EarlyStoppingTrigger: both 'patience' and its alias "
                "'patients' were given; give only 'patience'")
        if patience is None:
            patience = 3 if patients is None else patients
        if mode not in ('auto', 'max', 'min'):
            raise ValueError(
                "EarlyStoppingTrigger: expected mode 'auto', 'max' or 'min', "
                'got {!r}'.format(mode))
        self.count = 0
        self.patience = patience
        self.monitor = monitor
        self.verbose = verbose
        self.already_warning = False
        self._max_trigger = util.get_trigger(max_trigger)
        self._interval_trigger = util.get_trigger(check_trigger)
        self._init_summary()
        if mode == 'max' or mode == 'auto' and 'accuracy' in monitor:
            self._compare = operator.gt
            self.best = float('-inf')
            if verbose:
                print('early stopping: operator is greater')
        else:
            self._compare = operator.lt
            self.best = float('inf')
            if verbose:
                print('early stopping: operator is less')

    def __call__(self, trainer):
        observation = trainer.observation
        if self.monitor in observation:
            self._summary.add({self.monitor: observation[self.monitor]})
        if self._max_trigger(trainer):
            return True
        if not self._interval_trigger(trainer):
            return False
        if self.monitor not in observation:
            warnings.warn('EarlyStoppingTrigger: {} is not in the '
                          'observation'.format(self.monitor), stacklevel=2)
            return False
        current = float(self._summary.compute_mean()[self.monitor])
        self._init_summary()
        if self._compare(current, self.best):
            self.best = current
            self.count = 0
        else:
            self.count += 1
        if self._stop_condition():
            if self.verbose:
                print('Epoch {}: early stopping'.format(
                    trainer.updater.epoch))
            return True
        return False

    def _stop_condition(self):
        return self.count >= self.patience

    def _init_summary(self):
        self._summary = reporter.DictSummary()

    def get_training_length(self):
        """The length of ``max_trigger`` (what ProgressBar shows)."""
        return self._max_trigger.get_training_length()
