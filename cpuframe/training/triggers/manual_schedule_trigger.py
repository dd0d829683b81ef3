"""ManualScheduleTrigger: fire at listed iterations or epochs."""
import warnings

from cpuframe.training.triggers.interval_trigger import _check_unit


class ManualScheduleTrigger:
    """Fires when training passes one of ``points`` (a number or a list)
    in ``unit`` (``'iteration'`` or ``'epoch'``).

    ``finished`` turns True once the last point has passed; the trainer
    then skips the extension's ``initialize`` on resume.
    """

    def __init__(self, points, unit):
        _check_unit('ManualScheduleTrigger', unit)
        self.points = list(points) if isinstance(points, (list, tuple)) \
            else [points]
        if not self.points:
            raise ValueError('ManualScheduleTrigger: expected at least one '
                             'point, got an empty list')
        self.unit = unit
        self.finished = False
        self._previous_iteration = 0
        self._previous_epoch_detail = 0.0
        self._finished_is_tmp = False

    def __call__(self, trainer):
        updater = trainer.updater
        if self.unit == 'epoch':
            now = updater.epoch_detail
            previous = self._previous_epoch_detail
            if previous < 0:
                previous = updater.previous_epoch_detail
                if previous is None:
                    previous = 0.0
        else:
            now = updater.iteration
            previous = self._previous_iteration
            if previous < 0:
                previous = now - 1
        fire = any(previous < p <= now for p in self.points)
        last = max(self.points)
        if self._finished_is_tmp:
            self._finished_is_tmp = False
            if now >= last:
                self.finished = True
        if fire and now >= last:
            self.finished = True
        self._previous_iteration = updater.iteration
        if hasattr(updater, 'epoch_detail'):
            self._previous_epoch_detail = updater.epoch_detail
        return fire

    def serialize(self, serializer):
        try:
            self._previous_iteration = serializer(
                'previous_iteration', self._previous_iteration)
        except KeyError:
            warnings.warn('ManualScheduleTrigger: previous_iteration is not '
                          'in the snapshot', stacklevel=2)
            self._previous_iteration = -1
        try:
            self._previous_epoch_detail = serializer(
                'previous_epoch_detail', self._previous_epoch_detail)
        except KeyError:
            warnings.warn('ManualScheduleTrigger: previous_epoch_detail is '
                          'not in the snapshot', stacklevel=2)
            self._previous_epoch_detail = -1.0
        try:
            self.finished = bool(serializer('finished', self.finished))
        except KeyError:
            warnings.warn('ManualScheduleTrigger: finished is not in the '
                          'snapshot; it is revised at the next call', stacklevel=2)
            self._finished_is_tmp = True
