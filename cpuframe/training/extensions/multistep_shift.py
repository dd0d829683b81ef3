"""MultistepShift: multiply an optimizer attribute by ``gamma`` at given
steps."""
from cpuframe.training import extension
from cpuframe.training.extensions import _shift_util


class MultistepShift(extension.Extension):
    """Sets the attribute to ``init * gamma ** k`` where ``k`` is the
    number of entries of ``step_value`` reached so far (call ``t >= s``).
    ``init=None`` takes the attribute's value when training starts."""

    def __init__(self, attr, gamma, step_value, init, optimizer=None):
        self._attr = attr
        self._gamma = gamma
        self._step_value = sorted(step_value)
        self._init = init
        self._optimizer = optimizer
        self._t = 0

    def _value(self):
        steps = sum(1 for s in self._step_value if self._t >= s)
        return self._init * self._gamma ** steps

    def initialize(self, trainer):
        optimizer = _shift_util.get_optimizer(self, trainer)
        if self._init is None:
            self._init = getattr(optimizer, self._attr)
        setattr(optimizer, self._attr, self._value())

    def __call__(self, trainer):
        self._t += 1
        setattr(_shift_util.get_optimizer(self, trainer), self._attr,
                self._value())

    def serialize(self, serializer):
        self._t = serializer('_t', self._t)
