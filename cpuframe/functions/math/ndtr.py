"""Elementwise cumulative distribution function of the standard normal."""
import numpy

from cpuframe.function_node import FunctionNode
from cpuframe.functions.math import _special
from cpuframe.utils import type_check


class Ndtr(FunctionNode):

    @property
    def label(self):
        return 'ndtr'

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs):
        self.retain_inputs((0,))
        return _special.apply('ndtr', inputs[0]),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.math.exponential import exp
        x, = self.get_retained_inputs()
        return (1 / numpy.sqrt(2 * numpy.pi)) * exp(-0.5 * x * x) * \
            grad_outputs[0],


def ndtr(x):
    """Elementwise standard normal CDF ``(1 + erf(x / sqrt 2)) / 2``.

    Uses SciPy when installed, else a slower loop over ``math.erfc``.

    >>> F.ndtr(np.array([0.], np.float32)).array
    array([0.5], dtype=float32)
    """
    return Ndtr().apply((x,))[0]
