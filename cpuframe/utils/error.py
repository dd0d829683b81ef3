"""Formatting helpers for error messages."""


def _format_array_props(arrays):
    """``'shape:dtype, ...'`` of ``arrays`` (a list or tuple; None kept)."""
    if not isinstance(arrays, (list, tuple)):
        raise TypeError('arrays must be a list or a tuple')
    return ', '.join(
        'None' if a is None else '{}:{}'.format(a.shape, a.dtype.name)
        for a in arrays)
