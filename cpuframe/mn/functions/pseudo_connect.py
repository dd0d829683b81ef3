"""``pseudo_connect``: tie a graph component to a delegate variable."""
import numpy

from cpuframe.function_node import FunctionNode
from cpuframe.variable import Variable


class PseudoConnect(FunctionNode):
    """Pass ``inputs[1:]`` through; backward gives the delegate zeros."""

    def __init__(self, delegate_device=None):
        self._delegate_device = delegate_device

    def forward(self, inputs):
        delegate = inputs[0]
        self._delegate_meta = (delegate.shape, delegate.dtype)
        return tuple(inputs[1:])

    def backward(self, indexes, grad_outputs):
        ret = []
        for i in indexes:
            if i == 0:
                zeros = numpy.zeros(*self._delegate_meta)
                if self._delegate_device is not None:
                    zeros = self._delegate_device.send(zeros)
                ret.append(Variable(zeros, requires_grad=False))
            else:
                ret.append(grad_outputs[i - 1])
        return tuple(ret)


def pseudo_connect(delegate_variable, *actual_variables):
    """Return ``actual_variables`` made to depend on ``delegate_variable``.

    The result holds the values of ``actual_variables``; backward through
    it passes their gradients through and then continues from
    ``delegate_variable`` (with a zero gradient).  Use it where a process's
    graph has several components joined only by communication, e.g. when
    an intermediate component produces the model output, so that backward
    reaches every component (and every peer waiting for a gradient).

    Args:
        delegate_variable (Variable or None): e.g. what
            :func:`~cpuframe.mn.functions.send` returned; None means none.
        actual_variables (Variables or arrays): the values to return.

    Returns:
        tuple of ~cpuframe.Variable: one per actual variable.
    """
    if delegate_variable is None:
        delegate_variable = numpy.empty((0,), numpy.float32)
    from cpuframe.mn.functions._util import device_of
    return PseudoConnect(device_of(delegate_variable)).apply(
        (delegate_variable,) + actual_variables)
