"""Elementwise two-argument arctangent."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


class Arctan2(FunctionNode):
    """``y = arctan2(x1, x2)`` with NumPy broadcasting of the two inputs."""

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x1', 'x2'))
        type_check.expect(in_types[0].dtype.kind == 'f',
                          in_types[1].dtype == in_types[0].dtype)

    def forward(self, inputs):
        x1, x2 = inputs
        xp = backend.get_array_module(x1)
        try:
            y = xp.arctan2(x1, x2)
        except ValueError as e:
            raise ValueError('arctan2: x1 {} and x2 {} do not broadcast'
                             .format(x1.shape, x2.shape)) from e
        self.retain_inputs((0, 1))
        return utils.force_array(y, x1.dtype),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.array.sum_to import sum_to
        x1, x2 = self.get_retained_inputs()
        gy, = grad_outputs
        # d/dx1 = x2 / (x1^2 + x2^2), d/dx2 = -x1 / (x1^2 + x2^2)
        g = gy / (x1 * x1 + x2 * x2)
        ret = []
        for i in indexes:
            gx = g * x2 if i == 0 else -g * x1
            x = x1 if i == 0 else x2
            ret.append(gx if gx.shape == x.shape else sum_to(gx, x.shape))
        return tuple(ret)


def arctan2(x1, x2):
    """Elementwise arctangent of ``x1 / x2`` choosing the quadrant, in
    ``[-pi, pi]``.

    ``dy/dx1 = x2 / (x1 ** 2 + x2 ** 2)``, ``dy/dx2 = -x1 / (x1 ** 2 + x2 **
    2)``.  The inputs share a float dtype and broadcast like NumPy's.

    >>> F.arctan2(np.array([1., -1.]), np.array([-1., -1.])).array
    array([ 2.35619449, -2.35619449])
    """
    return Arctan2().apply((x1, x2))[0]
