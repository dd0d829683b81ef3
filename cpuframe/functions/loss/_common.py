"""Argument checks shared by the loss functions."""
from cpuframe.utils import type_check


def check_reduce(func_name, reduce, allowed):
    """Raise ``ValueError`` naming ``func_name`` unless ``reduce`` is allowed."""
    if reduce not in allowed:
        raise ValueError(
            '{}: only {} are valid for \'reduce\', but {!r} is given'.format(
                func_name, ' and '.join(repr(a) for a in allowed), reduce))


def check_positive_margin(func_name, margin):
    """Raise ``ValueError`` naming ``func_name`` unless ``margin > 0``."""
    if not margin > 0:
        raise ValueError('{}: margin should be a positive value, got '
                         '{!r}'.format(func_name, margin))


def check_same_float(in_types, names):
    """Expect float inputs of one dtype and one shape, named ``names``."""
    type_check.argname(in_types, names)
    first = in_types[0]
    type_check.expect(first.dtype.kind == 'f')
    for t in in_types[1:]:
        type_check.expect(first.dtype == t.dtype, first.shape == t.shape)
