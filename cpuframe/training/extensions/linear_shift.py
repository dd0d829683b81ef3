"""LinearShift: move an optimizer attribute linearly between two values."""
from cpuframe.training import extension
from cpuframe.training.extensions import _shift_util


class LinearShift(extension.Extension):
    """With ``value_range = (v1, v2)`` and ``time_range = (t1, t2)``, the
    attribute is ``v1`` up to call ``t1``, goes linearly to ``v2`` at call
    ``t2`` and stays there."""

    def __init__(self, attr, value_range, time_range, optimizer=None):
        self._attr = attr
        self._value_range = tuple(value_range)
        self._time_range = tuple(time_range)
        if len(self._value_range) != 2 or len(self._time_range) != 2:
            raise ValueError(
                'LinearShift: expected value_range and time_range as pairs, '
                'got {!r} and {!r}'.format(value_range, time_range))
        if self._time_range[1] <= self._time_range[0]:
            raise ValueError(
                'LinearShift: expected time_range (t1, t2) with t1 < t2, got '
                '{!r}'.format(time_range))
        self._optimizer = optimizer
        self._t = 0
        self._last_value = None

    def initialize(self, trainer):
        value = self._compute_next_value() if self._last_value is None \
            else self._last_value
        self._update_value(_shift_util.get_optimizer(self, trainer), value)

    def __call__(self, trainer):
        self._t += 1
        self._update_value(_shift_util.get_optimizer(self, trainer),
                           self._compute_next_value())

    def _compute_next_value(self):
        t1, t2 = self._time_range
        v1, v2 = self._value_range
        if self._t <= t1:
            return v1
        if self._t >= t2:
            return v2
        return v1 + (self._t - t1) / (t2 - t1) * (v2 - v1)

    def serialize(self, serializer):
        self._t = serializer('_t', self._t)
        self._last_value = _shift_util.load_last_value(
            serializer('_last_value', self._last_value))

    def _update_value(self, optimizer, value):
        setattr(optimizer, self._attr, value)
        self._last_value = value
