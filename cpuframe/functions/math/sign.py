"""Elementwise sign (not differentiable: no gradient flows)."""
from cpuframe import backend, utils
from cpuframe.variable import Variable, as_variable


def sign(x):
    """Elementwise sign: -1, 0 or 1 (NaN stays NaN), in ``x``'s dtype.

    The result is a new Variable with no creator and
    ``requires_grad=False``: no gradient flows back to ``x``.

    >>> F.sign(np.array([-2., 0., 3.], np.float32)).array
    array([-1.,  0.,  1.], dtype=float32)
    """
    if isinstance(x, Variable):
        x = x.array
    if not backend.is_array(x):
        raise TypeError('sign: expected a Variable or an array, got '
                        '{}'.format(type(x).__name__))
    if x.dtype.kind not in 'iuf':
        raise TypeError('sign: expected a numeric dtype, got '
                        '{}'.format(x.dtype))
    xp = backend.get_array_module(x)
    return as_variable(utils.force_array(xp.sign(x), x.dtype))
