"""Rounding to integers: floor, ceil, fix (no gradient flows)."""
from cpuframe import backend, utils
from cpuframe.variable import Variable, as_variable


def _round(x, name, op):
    if isinstance(x, Variable):
        x = x.array
    if not backend.is_array(x):
        raise TypeError('{}: expected a Variable or an array, got '
                        '{}'.format(name, type(x).__name__))
    if x.dtype.kind != 'f':
        raise TypeError('{}: expected a float dtype, got {}'.format(
            name, x.dtype))
    xp = backend.get_array_module(x)
    return as_variable(utils.force_array(getattr(xp, op)(x), x.dtype))


def floor(x):
    """Elementwise floor (round towards -inf), in ``x``'s dtype.

    Not differentiable: the result has no creator and
    ``requires_grad=False``.

    >>> F.floor(np.array([-1.5, 1.5], np.float32)).array
    array([-2.,  1.], dtype=float32)
    """
    return _round(x, 'floor', 'floor')


def ceil(x):
    """Elementwise ceiling (round towards +inf), in ``x``'s dtype.

    Not differentiable: the result has no creator and
    ``requires_grad=False``.

    >>> F.ceil(np.array([-1.5, 1.5], np.float32)).array
    array([-1.,  2.], dtype=float32)
    """
    return _round(x, 'ceil', 'ceil')


def fix(x):
    """Elementwise rounding towards zero, in ``x``'s dtype.

    Not differentiable: the result has no creator and
    ``requires_grad=False``.

    >>> F.fix(np.array([-1.5, 1.5], np.float32)).array
    array([-1.,  1.], dtype=float32)
    """
    # numpy.trunc: numpy.fix is deprecated from NumPy 2.5 (same values)
    return _round(x, 'fix', 'trunc')
