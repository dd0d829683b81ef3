"""Training loop, as in ``chainer.training``: ``Trainer``, updaters,
triggers and extensions."""
from cpuframe.training import (  # noqa: F401
    extension,
    extensions,
    trainer,
    trigger,
    triggers,
    updater,
    updaters,
    util,
)
from cpuframe.training.extension import (  # noqa: F401
    PRIORITY_EDITOR,
    PRIORITY_READER,
    PRIORITY_WRITER,
    Extension,
    make_extension,
)
from cpuframe.training.trainer import Trainer  # noqa: F401
from cpuframe.training.trigger import IntervalTrigger  # noqa: F401
from cpuframe.training.updater import (  # noqa: F401
    ParallelUpdater,
    StandardUpdater,
    Updater,
)
from cpuframe.training.util import get_trigger  # noqa: F401

__all__ = [
    'Extension', 'IntervalTrigger', 'PRIORITY_EDITOR', 'PRIORITY_READER',
    'PRIORITY_WRITER', 'ParallelUpdater', 'StandardUpdater', 'Trainer', 'Updater',
    'extension', 'extensions', 'get_trigger', 'make_extension', 'trainer',
    'trigger', 'triggers', 'updater', 'updaters', 'util',
]
