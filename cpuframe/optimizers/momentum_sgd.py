"""Stochastic gradient descent with classical momentum."""
import numpy

from cpuframe import optimizer
from cpuframe.optimizers import _native
from cpuframe.optimizers._momentum import VelocityMethod, VelocityRule

_ndarray = numpy.ndarray
_kernel = []


def _momentum_kernel():
    """The native ``momentum_sgd_update_f32`` (csrc/optimizer.cpp), or
    None: False from it means nothing was done (another dtype or layout,
    a shared buffer), and the NumPy code runs."""
    if not _kernel:
        _kernel.append(_native.kernel('momentum_sgd_update_f32'))
    return _kernel[0]


_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.01
_default_hyperparam.momentum = 0.9


class MomentumSGDRule(VelocityRule):
    """Update rule of momentum SGD.

    .. math::

        v \\leftarrow \\mu v - \\eta g, \\qquad \\theta \\leftarrow \\theta + v

    Args:
        parent_hyperparam (~cpuframe.optimizer.Hyperparameter): defaults.
        lr (float): learning rate :math:`\\eta`.
        momentum (float): momentum :math:`\\mu`.
    """

    default_hyperparam = _default_hyperparam

    def step(self, data, v, grad, lr, momentum):
        # (float32 NumPy arrays: one native pass, these operations bit for
        # bit; a parameter's 4 passes and a temporary become 1)
        if type(data) is _ndarray and type(v) is _ndarray and \
                type(grad) is _ndarray and _native.float32_scalar(lr) and \
                _native.float32_scalar(momentum):
            kernel = _kernel[0] if _kernel else _momentum_kernel()
            if kernel is not None and not _native.numpy_raises() and \
                    kernel(data, grad, v, lr, momentum):
                return
        v *= momentum
        v -= lr * grad
        data += v


class MomentumSGD(VelocityMethod):
    """Momentum SGD.

    Args:
        lr (float): learning rate.
        momentum (float): exponential decay rate of the velocity.
    """

    rule_class = MomentumSGDRule

    def __init__(self, lr=_default_hyperparam.lr,
                 momentum=_default_hyperparam.momentum):
        super().__init__(lr, momentum)
