"""ExponentialShift: multiply an optimizer attribute by ``rate`` per call."""
from cpuframe.training.extensions._shift_util import ScheduleShift


class ExponentialShift(ScheduleShift):
    """Sets ``optimizer.<attr>`` to ``init * rate ** t`` at its ``t``-th
    call (t = 0 before training), stopping at ``target`` if given.

    ``init`` defaults to the attribute's value when training starts;
    ``optimizer`` to the updater's main optimizer.  The count and the
    last value are saved in snapshots.
    """

    def __init__(self, attr, rate, init=None, target=None, optimizer=None):
        if rate < 0:
            raise ValueError('ExponentialShift: expected a non-negative rate, '
                             'got {}'.format(rate))
        super().__init__(attr, init, target, optimizer)
        self._rate = rate

    def schedule(self, t):
        return self._init * self._rate ** t

    def increasing(self):
        return self._rate > 1
