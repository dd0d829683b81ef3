"""Helpers of cpuframe.mn.functions: delegate variables and array moves."""
import numpy

from cpuframe import backend
from cpuframe.variable import Variable


class DelegateVariable(Variable):
    """An empty Variable that stands for a communication in the graph.

    ``send`` (and ``gather`` on a non-root rank) return one: it holds no
    data, only the graph, so ``backward()`` on it runs the backward of the
    communication (receiving the gradient the peer sends back).  Unlike a
    plain Variable, ``backward()`` needs no ``grad`` for it.
    """

    def backward(self, retain_grad=False, enable_double_backprop=False,
                 loss_scale=None):
        if self.grad_var is None and self.array is not None and \
                self.array.size == 0:
            self.grad = self.xp.zeros_like(self.array)
            try:
                return super().backward(retain_grad, enable_double_backprop,
                                        loss_scale)
            finally:
                self.grad = None
        return super().backward(retain_grad, enable_double_backprop,
                                loss_scale)


def as_delegate(var):
    """Make ``var`` (a fresh output Variable) a :class:`DelegateVariable`."""
    var.__class__ = DelegateVariable
    var.name = 'delegate_variable'
    return var


def empty_like_dummy(xp=numpy):
    return xp.empty((0,), dtype=numpy.float32)


def dummy_variable():
    """A constant-looking leaf that requires grad: it keeps the backward of
    a communication that has no differentiable input (its peer waits)."""
    return Variable(empty_like_dummy(), name='dummy_var')


def device_of(x):
    """The device of a Variable's or array's data."""
    array = x.array if isinstance(x, Variable) else x
    return backend.get_device_from_array(array)


def to_device(device, array):
    """``array`` (received as NumPy) on ``device`` (e.g. intel64's)."""
    if device is None:
        return array
    return device.send(array)

