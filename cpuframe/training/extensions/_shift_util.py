"""Pieces shared by the optimizer-attribute shift extensions."""
import numpy

from cpuframe.training import extension


def get_optimizer(ext, trainer):
    return ext._optimizer or trainer.updater.get_optimizer('main')


def load_last_value(value):
    if isinstance(value, numpy.ndarray):
        if value.dtype == object:
            return value[()]
        return value.item()
    return value


def clip_to_target(value, target, increasing):
    """``value`` stopped at ``target``: for a growing schedule the value
    never passes above it, for a shrinking one never below (compared by
    ratio, as Chainer does, so negative values work too)."""
    if target is None:
        return value
    if value == 0:
        return target
    ratio = value / target
    if increasing and ratio > 1 or not increasing and ratio < 1:
        return target
    return value


class ScheduleShift(extension.Extension):
    """Base of the shifts that set ``optimizer.<attr>`` to ``schedule(t)`` at
    their ``t``-th call (t = 0 before training), stopped at ``target``.

    ``init`` defaults to the attribute's value when training starts;
    ``optimizer`` to the updater's main optimizer. The count and the last
    value are saved in snapshots. Subclasses implement ``schedule(t)`` and
    ``increasing()`` (whether the schedule grows, which side ``target``
    bounds).
    """

    def __init__(self, attr, init, target, optimizer):
        self._attr = attr
        self._init = init
        self._target = target
        self._optimizer = optimizer
        self._t = 0
        self._last_value = None

    def schedule(self, t):
        raise NotImplementedError

    def increasing(self):
        raise NotImplementedError

    def initialize(self, trainer):
        optimizer = get_optimizer(self, trainer)
        if self._init is None:
            self._init = getattr(optimizer, self._attr)
        value = self._init if self._last_value is None else self._last_value
        self._update_value(optimizer, value)

    def __call__(self, trainer):
        self._t += 1
        value = clip_to_target(self.schedule(self._t), self._target,
                               self.increasing())
        self._update_value(get_optimizer(self, trainer), value)

    def serialize(self, serializer):
        self._t = serializer('_t', self._t)
        self._last_value = load_last_value(
            serializer('_last_value', self._last_value))

    def _update_value(self, optimizer, value):
        setattr(optimizer, self._attr, value)
        self._last_value = value
