"""Elementwise square."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


class Square(FunctionNode):
    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        return utils.force_array(
            backend.get_array_module(x).square(x), x.dtype),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] * (x * 2.0),


def square(x):
    """Elementwise square, ``y = x * x`` (``dy/dx = 2 x``).

    >>> F.square(np.array([-2., 3.], np.float32)).array
    array([4., 9.], dtype=float32)
    """
    return Square().apply((x,))[0]
