"""PolynomialShift: decay an optimizer attribute polynomially to zero."""
from cpuframe.training import extension
from cpuframe.training.extensions import _shift_util


class PolynomialShift(extension.Extension):
    """Sets the attribute to ``init * (1 - t / max_count) ** rate`` at call
    ``t`` (0 from ``max_count`` on), stopping at ``target`` if given."""

    def __init__(self, attr, rate, max_count, target=None, optimizer=None):
        if not max_count > 0:
            raise ValueError('PolynomialShift: expected a positive max_count, '
                             'got {!r}'.format(max_count))
        self._attr = attr
        self._rate = rate
        self._init = None
        self._target = target
        self._optimizer = optimizer
        self._t = 0
        self._max_count = max_count
        self._last_value = None

    def initialize(self, trainer):
        optimizer = _shift_util.get_optimizer(self, trainer)
        if self._init is None:
            self._init = getattr(optimizer, self._attr)
        value = self._init if self._last_value is None else self._last_value
        self._update_value(optimizer, value)

    def __call__(self, trainer):
        self._t += 1
        decay = max(1 - self._t / self._max_count, 0)
        value = self._init * decay ** self._rate
        if self._target is not None:
            # A shrinking schedule (rate > 0) stops at the target.
            value = _shift_util.clip_to_target(value, self._target,
                                               self._rate <= 0)
        self._update_value(_shift_util.get_optimizer(self, trainer), value)

    def serialize(self, serializer):
        self._t = serializer('_t', self._t)
        self._last_value = _shift_util.load_last_value(
            serializer('_last_value', self._last_value))

    def _update_value(self, optimizer, value):
        setattr(optimizer, self._attr, value)
        self._last_value = value
