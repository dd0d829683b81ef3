"""Square root and reciprocal square root."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


def _check_float(in_types):
    type_check.argname(in_types, ('x',))
    type_check.expect(in_types[0].dtype.kind == 'f')


class Sqrt(FunctionNode):
    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        _check_float(in_types)

    def forward(self, inputs):
        x, = inputs
        self.retain_outputs((0,))
        return utils.force_array(
            backend.get_array_module(x).sqrt(x), x.dtype),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        return grad_outputs[0] / (y * 2.0),


def sqrt(x):
    """Elementwise square root, ``y = x ** 0.5`` (``dy/dx = 1 / (2 y)``).

    >>> F.sqrt(np.array([4., 9.], np.float32)).array
    array([2., 3.], dtype=float32)
    """
    return Sqrt().apply((x,))[0]


class Rsqrt(FunctionNode):
    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        _check_float(in_types)

    def forward(self, inputs):
        x, = inputs
        self.retain_outputs((0,))
        xp = backend.get_array_module(x)
        return utils.force_array(1 / xp.sqrt(x), x.dtype),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        # y = x ** -1/2, so dy/dx = -x ** -3/2 / 2 = -y ** 3 / 2
        return grad_outputs[0] * (y * y * y) * -0.5,


def rsqrt(x):
    """Elementwise reciprocal square root, ``y = 1 / sqrt(x)``.

    >>> F.rsqrt(np.array([4., 16.], np.float32)).array
    array([0.5 , 0.25], dtype=float32)
    """
    return Rsqrt().apply((x,))[0]
