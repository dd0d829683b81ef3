"""InverseShift: Caffe's ``inv`` policy for an optimizer attribute."""
from cpuframe.training import extension
from cpuframe.training.extensions import _shift_util


class InverseShift(extension.Extension):
    """Sets the attribute to ``init * (1 + gamma * t) ** (-power)`` at call
    ``t``, stopping at ``target`` if given."""

    def __init__(self, attr, gamma, power, init=None, target=None,
                 optimizer=None):
        if gamma < 0:
            raise ValueError('InverseShift: expected a non-negative gamma, '
                             'got {}'.format(gamma))
        self._attr = attr
        self._gamma = gamma
        self._power = power
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
        value = self._init * (1 + self._gamma * self._t) ** (-self._power)
        value = _shift_util.clip_to_target(value, self._target,
                                           self._power < 0)
        self._update_value(_shift_util.get_optimizer(self, trainer), value)

    def serialize(self, serializer):
        self._t = serializer('_t', self._t)
        self._last_value = _shift_util.load_last_value(
            serializer('_last_value', self._last_value))

    def _update_value(self, optimizer, value):
        setattr(optimizer, self._attr, value)
        self._last_value = value
