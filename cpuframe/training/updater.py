"""``chainer.training.updater``: ``Updater`` and ``StandardUpdater``."""
from cpuframe.training._updater import Updater  # noqa: F401
from cpuframe.training.updaters.standard_updater import (  # noqa: F401
    StandardUpdater,
)

__all__ = ['StandardUpdater', 'Updater']
