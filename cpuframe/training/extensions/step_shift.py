"""StepShift: multiply an optimizer attribute by ``gamma`` every ``step``
calls."""
import math

from cpuframe.training.extensions._shift_util import ScheduleShift


class StepShift(ScheduleShift):
    """Sets the attribute to ``init * gamma ** floor(t / step)`` at call
    ``t``, stopping at ``target`` if given."""

    def __init__(self, attr, gamma, step, init=None, target=None,
                 optimizer=None):
        if not step > 0:
            raise ValueError('StepShift: expected a positive step, got '
                             '{!r}'.format(step))
        super().__init__(attr, init, target, optimizer)
        self._gamma = gamma
        self._step = step

    def schedule(self, t):
        return self._init * self._gamma ** math.floor(t / self._step)

    def increasing(self):
        return self._gamma > 1
