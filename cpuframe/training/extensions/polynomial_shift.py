"""PolynomialShift: decay an optimizer attribute polynomially to zero."""
from cpuframe.training.extensions._shift_util import ScheduleShift


class PolynomialShift(ScheduleShift):
    """Sets the attribute to ``init * (1 - t / max_count) ** rate`` at call
    ``t`` (0 from ``max_count`` on), stopping at ``target`` if given."""

    def __init__(self, attr, rate, max_count, target=None, optimizer=None):
        if not max_count > 0:
            raise ValueError('PolynomialShift: expected a positive max_count, '
                             'got {!r}'.format(max_count))
        super().__init__(attr, None, target, optimizer)
        self._rate = rate
        self._max_count = max_count

    def schedule(self, t):
        decay = max(1 - t / self._max_count, 0)
        return self._init * decay ** self._rate

    def increasing(self):
        # a shrinking schedule (rate > 0) stops at the target
        return self._rate <= 0
