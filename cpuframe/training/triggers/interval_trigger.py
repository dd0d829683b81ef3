"""IntervalTrigger: fire every ``period`` iterations or epochs."""
import numbers
import warnings


def _check_unit(cls_name, unit):
    if unit not in ('epoch', 'iteration'):
        raise ValueError(
            "{}: expected unit 'epoch' or 'iteration', got {!r}".format(
                cls_name, unit))


def _check_period(cls_name, period):
    if isinstance(period, bool) or not isinstance(period, numbers.Real) \
            or not period > 0:
        raise ValueError(
            '{}: expected a positive period, got {!r}'.format(
                cls_name, period))


class IntervalTrigger:
    """Fires when the iteration count (or the epoch, fractional when the
    unit is ``'epoch'``) crosses a multiple of ``period``.

    It remembers the position of its previous call, so it fires once per
    crossing however often it is called, and resumes correctly from a
    snapshot.
    """

    def __init__(self, period, unit):
        _check_unit('IntervalTrigger', unit)
        _check_period('IntervalTrigger', period)
        self.period = period
        self.unit = unit
        self._previous_iteration = 0
        self._previous_epoch_detail = 0.0
        # Chainer keeps ``count`` (epoch // period) for old user code.
        self.count = 0

    def __call__(self, trainer):
        updater = trainer.updater
        if self.unit == 'epoch':
            epoch_detail = updater.epoch_detail
            previous = self._previous_epoch_detail
            if previous < 0:
                previous = updater.previous_epoch_detail
                if previous is None:
                    previous = 0.0
            self.count = epoch_detail // self.period
            fire = previous // self.period != epoch_detail // self.period
        else:
            iteration = updater.iteration
            previous = self._previous_iteration
            if previous < 0:
                previous = iteration - 1
            fire = previous // self.period != iteration // self.period
        self._previous_iteration = updater.iteration
        if hasattr(updater, 'epoch_detail'):
            self._previous_epoch_detail = updater.epoch_detail
        return bool(fire)

    def serialize(self, serializer):
        try:
            self._previous_iteration = serializer(
                'previous_iteration', self._previous_iteration)
        except KeyError:
            warnings.warn(
                'IntervalTrigger: previous_iteration is not in the snapshot; '
                'it is guessed from the current iteration', stacklevel=2)
            self._previous_iteration = -1
        try:
            self._previous_epoch_detail = serializer(
                'previous_epoch_detail', self._previous_epoch_detail)
        except KeyError:
            warnings.warn(
                'IntervalTrigger: previous_epoch_detail is not in the '
                'snapshot; it is taken from the updater', stacklevel=2)
            self._previous_epoch_detail = -1.0

    def get_training_length(self):
        """``(period, unit)``, the training length when used as a stop
        trigger."""
        return self.period, self.unit

    def __str__(self):
        return "{}({}, '{}')".format(type(self).__name__, self.period,
                                     self.unit)
