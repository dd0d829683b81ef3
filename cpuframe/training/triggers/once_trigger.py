"""OnceTrigger: fire only at the first call (and optionally on resume)."""


class OnceTrigger:
    """Fires at its first call; with ``call_on_resume`` it also fires at
    the first call after being loaded from a snapshot."""

    def __init__(self, call_on_resume=False):
        self._flag_first = True
        self._flag_resumed = call_on_resume

    @property
    def finished(self):
        """True once the trigger has fired and will not fire again."""
        return not (self._flag_first or self._flag_resumed)

    def __call__(self, trainer):
        fire = not self.finished
        self._flag_resumed = False
        self._flag_first = False
        return fire

    def serialize(self, serializer):
        self._flag_first = bool(serializer('_flag_first', self._flag_first))
