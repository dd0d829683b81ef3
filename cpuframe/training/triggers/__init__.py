"""Triggers decide when the trainer calls an extension or stops."""
from cpuframe.training.triggers.early_stopping_trigger import (  # noqa: F401
    EarlyStoppingTrigger,
)
from cpuframe.training.triggers.interval_trigger import (  # noqa: F401
    IntervalTrigger,
)
from cpuframe.training.triggers.manual_schedule_trigger import (  # noqa: F401
    ManualScheduleTrigger,
)
from cpuframe.training.triggers.minmax_value_trigger import (  # noqa: F401
    BestValueTrigger,
    MaxValueTrigger,
    MinValueTrigger,
)
from cpuframe.training.triggers.once_trigger import OnceTrigger  # noqa: F401
from cpuframe.training.triggers.time_trigger import TimeTrigger  # noqa: F401

__all__ = [
    'BestValueTrigger', 'EarlyStoppingTrigger', 'IntervalTrigger',
    'ManualScheduleTrigger', 'MaxValueTrigger', 'MinValueTrigger',
    'OnceTrigger', 'TimeTrigger',
]
