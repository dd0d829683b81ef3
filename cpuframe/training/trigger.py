"""``chainer.training.trigger``: ``get_trigger`` and ``IntervalTrigger``."""
from cpuframe.training.triggers.interval_trigger import (  # noqa: F401
    IntervalTrigger,
)
from cpuframe.training.util import get_trigger  # noqa: F401

__all__ = ['IntervalTrigger', 'get_trigger']
