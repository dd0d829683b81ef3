"""ExponentialShift: multiply an optimizer attribute by ``rate`` per call."""
from cpuframe.training import extension
from cpuframe.training.extensions import _shift_util


class ExponentialShift(extension.Extension):
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
        self._attr = attr
        self._rate = rate
        self._init = init
        self._target = target
        self._optimizer = optimizer
        self._t = 0
        self._last_value = None

    def initialize(self, trainer):
        optimizer = _shift_util.get_optimizer(self, trainer)
        if self._init is None:
            self._init = getattr(optimizer, self._attr)
        value = self._init if self._last_value is None else self._last_value
        self._update_value(optimizer, value)

    def __call__(self, trainer):
        self._t += 1
        value = self._init * self._rate ** self._t
        value = _shift_util.clip_to_target(value, self._target,
                                           self._rate > 1)
        self._update_value(_shift_util.get_optimizer(self, trainer), value)

    def serialize(self, serializer):
        self._t = serializer('_t', self._t)
        self._last_value = _shift_util.load_last_value(
            serializer('_last_value', self._last_value))

    def _update_value(self, optimizer, value):
        setattr(optimizer, self._attr, value)
        self._last_value = value
