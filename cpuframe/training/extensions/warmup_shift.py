"""WarmupShift: ramp an optimizer attribute up at the start of training."""
from cpuframe.training import extension
from cpuframe.training.extensions import _shift_util


class WarmupShift(extension.Extension):
    """Moves the attribute evenly from ``warmup_start`` to ``init`` over
    the first ``warmup_iter`` calls, then leaves it alone (so another
    shift can take over).  ``init=None`` takes the attribute's value when
    training starts."""

    def __init__(self, attr, warmup_start, warmup_iter, init=None,
                 optimizer=None):
        if not warmup_iter > 0:
            raise ValueError('WarmupShift: expected a positive warmup_iter, '
                             'got {!r}'.format(warmup_iter))
        self._attr = attr
        self._warmup_start = warmup_start
        self._warmup_iter = warmup_iter
        self._init = init
        self._optimizer = optimizer
        self._t = 0

    def _value(self):
        t = min(self._t, self._warmup_iter)
        return (t * self._init + (self._warmup_iter - t) *
                self._warmup_start) / self._warmup_iter

    def initialize(self, trainer):
        optimizer = _shift_util.get_optimizer(self, trainer)
        if self._init is None:
            self._init = getattr(optimizer, self._attr)
        # On resume past the warm-up the attribute belongs to whoever set
        # it later; within it, the value follows from the restored count.
        if self._t < self._warmup_iter:
            setattr(optimizer, self._attr, self._value())

    def __call__(self, trainer):
        self._t += 1
        if self._t <= self._warmup_iter:
            setattr(_shift_util.get_optimizer(self, trainer), self._attr,
                    self._value())

    def serialize(self, serializer):
        self._t = serializer('_t', self._t)
