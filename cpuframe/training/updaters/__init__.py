"""Updaters: what the trainer calls once per iteration."""
from cpuframe.training.updaters.standard_updater import (  # noqa: F401
    StandardUpdater,
)

__all__ = ['StandardUpdater']
