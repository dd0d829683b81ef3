"""InverseShift: Caffe's ``inv`` policy for an optimizer attribute."""
from cpuframe.training.extensions._shift_util import ScheduleShift


class InverseShift(ScheduleShift):
    """Sets the attribute to ``init * (1 + gamma * t) ** (-power)`` at call
    ``t``, stopping at ``target`` if given."""

    def __init__(self, attr, gamma, power, init=None, target=None,
                 optimizer=None):
        if gamma < 0:
            raise ValueError('InverseShift: expected a non-negative gamma, '
                             'got {}'.format(gamma))
        super().__init__(attr, init, target, optimizer)
        self._gamma = gamma
        self._power = power

    def schedule(self, t):
        return self._init * (1 + self._gamma * t) ** (-self._power)

    def increasing(self):
        return self._power < 0
