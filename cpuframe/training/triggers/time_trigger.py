"""TimeTrigger: fire every ``period`` seconds of training time."""


class TimeTrigger:
    """Fires once each time ``trainer.elapsed_time`` passes another
    ``period`` seconds."""

    def __init__(self, period):
        if not period > 0:
            raise ValueError('TimeTrigger: expected a positive period in '
                             'seconds, got {!r}'.format(period))
        self._period = period
        self._next_time = period

    def __call__(self, trainer):
        if self._next_time < trainer.elapsed_time:
            self._next_time += self._period
            return True
        return False

    def serialize(self, serializer):
        self._next_time = serializer('next_time', self._next_time)
