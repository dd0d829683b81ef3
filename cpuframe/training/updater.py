"""``chainer.training.updater``: ``Updater``, ``StandardUpdater`` and
``ParallelUpdater``."""
from cpuframe.training._updater import Updater  # noqa: F401
from cpuframe.training.updaters.parallel_updater import (  # noqa: F401
    ParallelUpdater,
)
from cpuframe.training.updaters.standard_updater import (  # noqa: F401
    StandardUpdater,
)

__all__ = ['ParallelUpdater', 'StandardUpdater', 'Updater']
