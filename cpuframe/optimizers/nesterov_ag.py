"""Nesterov's accelerated gradient."""
from cpuframe import optimizer
from cpuframe.optimizers._momentum import VelocityMethod, VelocityRule

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.01
_default_hyperparam.momentum = 0.9


class NesterovAGRule(VelocityRule):
    """Update rule of Nesterov's accelerated gradient.

    .. math::

        v \\leftarrow \\mu v - \\eta g, \\qquad
        \\theta \\leftarrow \\theta + \\mu^2 v - (1 + \\mu) \\eta g

    Args:
        parent_hyperparam (~cpuframe.optimizer.Hyperparameter): defaults.
        lr (float): learning rate :math:`\\eta`.
        momentum (float): momentum :math:`\\mu`.
    """

    default_hyperparam = _default_hyperparam

    def step(self, data, v, grad, lr, momentum):
        v *= momentum
        v -= lr * grad
        data += momentum * momentum * v
        data -= (1 + momentum) * lr * grad


class NesterovAG(VelocityMethod):
    """Nesterov's accelerated gradient (https://arxiv.org/abs/1212.0901).

    Args:
        lr (float): learning rate.
        momentum (float): exponential decay rate of the velocity.
    """

    rule_class = NesterovAGRule

    def __init__(self, lr=_default_hyperparam.lr,
                 momentum=_default_hyperparam.momentum):
        super().__init__(lr, momentum)
