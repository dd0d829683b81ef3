"""Elementwise linear interpolation ``p * x + (1 - p) * y``."""
from cpuframe import utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


class LinearInterpolate(FunctionNode):
    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('p', 'x', 'y'))
        p, x, y = in_types
        type_check.expect(p.dtype.kind == 'f', p.dtype == x.dtype,
                          p.dtype == y.dtype, p.shape == x.shape,
                          p.shape == y.shape)

    def forward(self, inputs):
        p, x, y = inputs
        self.retain_inputs((0, 1, 2))
        # y + p * (x - y) == p * x + (1 - p) * y
        return utils.force_array(y + p * (x - y), p.dtype),

    def backward(self, indexes, grad_outputs):
        p, x, y = self.get_retained_inputs()
        g, = grad_outputs
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(g * (x - y))
            elif i == 1:
                ret.append(g * p)
            else:
                ret.append(g * (1 - p))
        return tuple(ret)


def linear_interpolate(p, x, y):
    """Elementwise ``p * x + (1 - p) * y``.

    ``p``, ``x`` and ``y`` are float arrays of the same shape and dtype.

    >>> F.linear_interpolate(np.array([0.25]), np.array([4.]),
    ...                      np.array([0.])).array
    array([1.])
    """
    return LinearInterpolate().apply((p, x, y))[0]
