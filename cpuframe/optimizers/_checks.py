"""Argument checks shared by the optimizers' constructors."""
import numbers

import numpy


def check_real(where, name, value, low=None, high=None, high_open=False):
    """Raise unless ``value`` is a real number in ``[low, high]``.

    ``high_open`` excludes ``high`` itself (``[low, high)``).
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError('{}: {} must be a real number, got {!r}'.format(
            where, name, value))
    value = float(value)
    if value != value:
        raise ValueError('{}: {} must not be NaN'.format(where, name))
    if low is not None and value < low:
        raise ValueError('{}: {} must be >= {}, got {}'.format(
            where, name, low, value))
    if high is not None and (value >= high if high_open else value > high):
        raise ValueError('{}: {} must be {} {}, got {}'.format(
            where, name, '<' if high_open else '<=', high, value))


def check_bool(where, name, value):
    """Raise unless ``value`` is a bool (NumPy bools included)."""
    if not isinstance(value, (bool, numpy.bool_)):
        raise TypeError('{}: {} must be a bool, got {!r}'.format(
            where, name, value))
