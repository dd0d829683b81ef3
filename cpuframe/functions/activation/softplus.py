"""Softplus, a smooth approximation of ReLU."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


class Softplus(FunctionNode):
    def __init__(self, beta=1.0):
        self.beta = float(beta)
        if self.beta == 0:
            raise ValueError('softplus: expected a nonzero beta, got '
                             '{}'.format(beta))

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        self.retain_inputs((0,))
        bx = x * x.dtype.type(self.beta)
        # log(1 + e^z) = max(z, 0) + log1p(e^-|z|): no overflow for large z
        y = (xp.maximum(bx, 0) + xp.log1p(xp.exp(-abs(bx)))) * \
            x.dtype.type(1.0 / self.beta)
        return utils.force_array(y, x.dtype),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.activation.sigmoid import sigmoid
        x, = self.get_retained_inputs()
        return grad_outputs[0] * sigmoid(x * self.beta),


def softplus(x, beta=1.0):
    """Softplus, elementwise.

    .. math:: y = \\frac{1}{\\beta} \\log(1 + \\exp(\\beta x))

    computed without overflow for large ``beta * x``.  The gradient is
    ``sigmoid(beta * x)``.

    Args:
        x: a float Variable or array of any shape.
        beta (float): the sharpness; larger values approach ``max(0, x)``.

    Returns:
        A Variable of the same shape and dtype.

    >>> F.softplus(np.array([0.], np.float64)).array
    array([0.69314718])
    """
    return Softplus(beta).apply((x,))[0]
