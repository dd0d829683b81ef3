"""Caching the results of Chainer functions on objects."""
import functools


class cached_property:
    """A read-only property computed once per ``config.enable_backprop``.

    The value computed with backprop enabled is kept apart from the one
    computed without, so a graph-less result is never reused where a graph
    is needed.
    """

    def __init__(self, func):
        functools.update_wrapper(self, func)
        self.func = func

    def __get__(self, obj, cls):
        if obj is None:
            return self
        from cpuframe.configuration import config
        caches = obj.__dict__.setdefault(self.__name__, {})
        key = bool(config.enable_backprop)
        if key not in caches:
            caches[key] = self.func(obj)
        return caches[key]

    def __set__(self, obj, value):
        raise AttributeError('attribute {!r} of {} is readonly'.format(
            self.__name__, type(obj)))
