"""Helpers shared by the training package (``chainer.training.util``)."""


def _never_fire_trigger(trainer):
    return False


def get_trigger(trigger):
    """A trigger object from ``trigger``.

    A callable is returned as is, ``None`` gives a trigger that never
    fires, and a ``(period, unit)`` pair gives an ``IntervalTrigger``.
    """
    from cpuframe.training.triggers.interval_trigger import IntervalTrigger
    if callable(trigger):
        return trigger
    if trigger is None:
        return _never_fire_trigger
    if isinstance(trigger, (tuple, list)) and len(trigger) == 2:
        return IntervalTrigger(*trigger)
    raise TypeError(
        "get_trigger: expected a callable, None or a (period, unit) pair "
        "such as (1, 'epoch'), got {!r}".format(trigger))


def _to_str(value):
    """A string read back through a deserializer (npz gives a 0-d array)."""
    if hasattr(value, 'ndim') and getattr(value, 'ndim', None) == 0:
        value = value[()]
    if isinstance(value, bytes):
        return value.decode('utf-8')
    return str(value)
