"""Clip values into an interval."""
import numpy

from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


class Clip(FunctionNode):
    def __init__(self, x_min, x_max):
        if x_min is None and x_max is None:
            raise ValueError('clip: expected at least one of x_min and x_max, '
                             'got both None')
        for name, v in (('x_min', x_min), ('x_max', x_max)):
            if v is not None and not numpy.isscalar(v):
                raise TypeError('clip: expected {} as a scalar or None, got '
                                '{}'.format(name, type(v).__name__))
        if x_min is not None and x_max is not None and x_min > x_max:
            raise ValueError('clip: expected x_min <= x_max, got x_min={} and '
                             'x_max={}'.format(x_min, x_max))
        self.x_min = x_min
        self.x_max = x_max

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        xp = backend.get_array_module(x)
        return utils.force_array(xp.clip(x, self.x_min, self.x_max),
                                 x.dtype),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        xa = x.array
        # Starts True except at NaN, so a NaN gets no gradient even when a
        # bound is None (as it gets none when compared with a bound).
        inside = xa == xa
        if self.x_min is not None:
            inside &= xa >= self.x_min
        if self.x_max is not None:
            inside &= xa <= self.x_max
        return grad_outputs[0] * inside.astype(x.dtype),


def clip(x, x_min, x_max):
    """Clip the elements of ``x`` into ``[x_min, x_max]``.

    Args:
        x: a float Variable or array.
        x_min, x_max: scalar bounds; one of them may be None (no bound on
            that side).  ``x_min > x_max`` is an error.

    The gradient is 1 where ``x_min <= x <= x_max`` (boundaries included)
    and 0 outside.

    >>> F.clip(np.array([-2., 0.5, 3.], np.float32), -1., 1.).array
    array([-1. ,  0.5,  1. ], dtype=float32)
    """
    return Clip(x_min, x_max).apply((x,))[0]
