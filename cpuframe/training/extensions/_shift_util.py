"""Pieces shared by the optimizer-attribute shift extensions."""
import numpy


def get_optimizer(ext, trainer):
    return ext._optimizer or trainer.updater.get_optimizer('main')


def load_last_value(value):
    if isinstance(value, numpy.ndarray):
        if value.dtype == object:
            return value[()]
        return value.item()
    return value


def clip_to_target(value, target, increasing):
    """``value`` stopped at ``target``: for a growing schedule the value
    never passes above it, for a shrinking one never below (compared by
    ratio, as Chainer does, so negative values work too)."""
    if target is None:
        return value
    if value == 0:
        return target
    ratio = value / target
    if increasing and ratio > 1 or not increasing and ratio < 1:
        return target
    return value
