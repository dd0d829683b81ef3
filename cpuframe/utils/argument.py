"""Helpers for functions that take options through ``**kwargs``."""
import inspect


def check_unexpected_kwargs(kwargs, **unexpected):
    """Raise ValueError(message) for each ``key=message`` found in kwargs.

    Used to reject removed arguments with an explanation.
    """
    for key, message in unexpected.items():
        if key in kwargs:
            raise ValueError(message)


def parse_kwargs(kwargs, *name_and_values, **unexpected):
    """Pop ``(name, default)`` pairs from ``kwargs`` and return the values.

    Leftover keys raise ValueError if named in ``unexpected`` (with its
    message), else TypeError naming the calling function and the keys.
    """
    values = tuple(kwargs.pop(name, default)
                   for name, default in name_and_values)
    if kwargs:
        check_unexpected_kwargs(kwargs, **unexpected)
        caller = inspect.stack()[1][3]
        names = ', '.join(repr(k) for k in sorted(kwargs))
        raise TypeError(
            '{}() got unexpected keyword argument(s) {}'.format(caller, names))
    return values


def assert_kwargs_empty(kwargs):
    """Raise TypeError if ``kwargs`` holds anything."""
    parse_kwargs(kwargs)
