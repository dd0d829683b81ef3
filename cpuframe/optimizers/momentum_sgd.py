"""Stochastic gradient descent with classical momentum."""
from cpuframe import optimizer
from cpuframe.optimizers._momentum import VelocityMethod, VelocityRule

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
