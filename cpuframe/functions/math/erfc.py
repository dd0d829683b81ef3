"""Elementwise complementary error function."""
import numpy

from cpuframe.function_node import FunctionNode
from cpuframe.functions.math import _special
from cpuframe.utils import type_check


class Erfc(FunctionNode):

    @property
    def label(self):
        return 'erfc'

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs):
        self.retain_inputs((0,))
        return _special.apply('erfc', inputs[0]),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.math.exponential import exp
        x, = self.get_retained_inputs()
        return -2 / numpy.sqrt(numpy.pi) * exp(-x * x) * grad_outputs[0],


def erfc(x):
    """Elementwise complementary error function ``erfc(x) = 1 - erf(x)``.

    Uses SciPy when installed, else a slower loop over ``math.erfc``.

    >>> F.erfc(np.array([0.], np.float32)).array
    array([1.], dtype=float32)
    """
    return Erfc().apply((x,))[0]
