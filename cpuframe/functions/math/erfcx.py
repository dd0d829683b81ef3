"""Elementwise scaled complementary error function."""
import math

from cpuframe.function_node import FunctionNode
from cpuframe.functions.math import _special
from cpuframe.utils import type_check


class Erfcx(FunctionNode):

    @property
    def label(self):
        return 'erfcx'

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        return _special.apply_kernel('erfcx', x.dtype, x),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        return 2 * (x * y - 1 / math.sqrt(math.pi)) * grad_outputs[0],


def erfcx(x):
    """Elementwise ``erfcx(x) = exp(x ** 2) erfc(x)``.

    Finite and accurate for large positive ``x`` (about ``1 / (x sqrt pi)``)
    where ``exp(x ** 2)`` alone overflows; ``inf`` below about -26.6.

    >>> F.erfcx(np.array([0., 30.])).array
    array([1.        , 0.01879589])
    """
    return Erfcx().apply((x,))[0]
