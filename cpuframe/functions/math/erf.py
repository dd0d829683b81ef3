"""Elementwise error function."""
import numpy

from cpuframe.function_node import FunctionNode
from cpuframe.functions.math import _special
from cpuframe.utils import type_check


class Erf(FunctionNode):

    @property
    def label(self):
        return 'erf'

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs):
        self.retain_inputs((0,))
        return _special.apply('erf', inputs[0]),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.math.exponential import exp
        x, = self.get_retained_inputs()
        return 2 / numpy.sqrt(numpy.pi) * exp(-x * x) * grad_outputs[0],


def erf(x):
    """Elementwise error function ``erf(x) = 2/sqrt(pi) int_0^x e^{-t^2} dt``.

    Uses SciPy when installed, else a slower loop over ``math.erf``.

    >>> F.erf(np.array([0.], np.float32)).array
    array([0.], dtype=float32)
    """
    return Erf().apply((x,))[0]
