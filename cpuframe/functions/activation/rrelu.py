"""Randomized leaky ReLU."""
import numbers

from cpuframe import backend, utils
from cpuframe.configuration import config
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check
from cpuframe.variable import Variable


class RReLU(FunctionNode):
    """``y = x`` for ``x >= 0``, ``r * x`` otherwise.

    ``r`` is drawn from ``U(l, u)`` per element in training mode (unless
    given) and is ``(l + u) / 2`` in test mode.  The gradient multiplies by
    the same slopes (a linear map of ``gy``), so every order works.
    """

    def __init__(self, lower, upper, r=None):
        for name, v in (('l', lower), ('u', upper)):
            if isinstance(v, bool) or not isinstance(v, numbers.Real) or \
                    not 0.0 <= v < 1.0:
                raise ValueError('rrelu: expected 0 <= {} < 1, got '
                                 '{!r}'.format(name, v))
        if not lower < upper:
            raise ValueError('rrelu: expected l < u, got l={}, u={}'.format(
                lower, upper))
        self.lower = lower
        self.upper = upper
        self.r = r

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        x_type, = in_types
        type_check.expect(x_type.dtype.kind == 'f')
        if self.r is not None and config.train:
            r = type_check.make_variable(
                type_check.TypeInfo(self.r.shape, self.r.dtype), 'r')
            type_check.expect(r.dtype == x_type.dtype,
                              r.shape == x_type.shape)

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        if config.train:
            if self.r is None:
                # xp.random's global state: numpy.random.seed repeats it.
                self.r = xp.random.uniform(self.lower, self.upper,
                                           x.shape).astype(x.dtype)
        else:
            self.r = xp.full(x.shape, (self.lower + self.upper) / 2,
                             dtype=x.dtype)
        self._slope = xp.where(x >= 0, x.dtype.type(1), self.r)
        return utils.force_array(x * self._slope, x.dtype),

    def backward(self, indexes, grad_outputs):
        return _Slope(self._slope).apply(grad_outputs)


class _Slope(FunctionNode):
    """``gx = gy * slope`` for fixed slopes: linear, its own gradient."""

    def __init__(self, slope):
        self.slope = slope

    def forward(self, inputs):
        gy, = inputs
        return utils.force_array(gy * self.slope, gy.dtype),

    def backward(self, indexes, grad_outputs):
        return _Slope(self.slope).apply(grad_outputs)


def rrelu(x, l=1. / 8, u=1. / 3, **kwargs):  # noqa: E741
    """rrelu(x, l=1. / 8, u=1. / 3, *, r=None, return_r=False)

    Randomized leaky rectified linear unit::

        y = x      (x >= 0)
        y = r * x  (x < 0)

    In training mode (``config.train``) ``r`` is drawn per element from
    the uniform distribution on ``[l, u)`` (``numpy.random``'s global
    state), unless given; in test mode ``r = (l + u) / 2`` everywhere.

    See: `Empirical Evaluation of Rectified Activations in Convolutional
    Network <https://arxiv.org/abs/1505.00853>`_

    Args:
        x (Variable or array): Float input.
        l (float): Lower bound of ``r``, ``0 <= l < u``.
        u (float): Upper bound of ``r``, ``l < u < 1``.
        r (array, keyword only): Slopes of the shape and dtype of ``x`` to
            use in training mode instead of drawing them.
        return_r (bool, keyword only): Also return the slopes used.

    Returns:
        Variable of the shape of ``x``, or ``(y, r)`` with ``return_r``.

    >>> x = np.array([-2., 1.], np.float32)
    >>> with cpuframe.using_config('train', False):
    ...     F.rrelu(x, 0.1, 0.3).array
    array([-0.4,  1. ], dtype=float32)
    """
    if 'train' in kwargs:
        raise ValueError('rrelu: the train argument is not supported '
                         'anymore; use cpuframe.using_config(\'train\', ...)')
    unknown = set(kwargs) - {'r', 'return_r'}
    if unknown:
        raise TypeError('rrelu() got unexpected keyword argument(s) '
                        '{}'.format(', '.join(sorted(unknown))))
    r = kwargs.get('r')
    if isinstance(r, Variable):
        r = r.array
    if r is not None and not backend.is_array(r):
        raise TypeError('rrelu: expected r as an array, got {}'.format(
            type(r).__name__))
    func = RReLU(l, u, r)
    y, = func.apply((x,))
    if kwargs.get('return_r', False):
        return y, func.r
    return y
