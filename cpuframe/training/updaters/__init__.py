"""Updaters: what the trainer calls once per iteration."""
from cpuframe.training.updaters.multiprocess_parallel_updater import (  # noqa: F401,E501
    MultiprocessParallelUpdater,
)
from cpuframe.training.updaters.parallel_updater import (  # noqa: F401
    ParallelUpdater,
)
from cpuframe.training.updaters.standard_updater import (  # noqa: F401
    StandardUpdater,
)

__all__ = ['MultiprocessParallelUpdater', 'ParallelUpdater',
           'StandardUpdater']
