"""Momentum SGD with the learning rate outside the velocity."""
from cpuframe import optimizer
from cpuframe.optimizers._momentum import VelocityMethod, VelocityRule

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.01
_default_hyperparam.momentum = 0.9


class CorrectedMomentumSGDRule(VelocityRule):
    """Update rule of corrected momentum SGD.

    .. math::

        u \\leftarrow \\mu u - g, \\qquad \\theta \\leftarrow \\theta + \\eta u

    Args:
        parent_hyperparam (~cpuframe.optimizer.Hyperparameter): defaults.
        lr (float): learning rate :math:`\\eta`.
        momentum (float): momentum :math:`\\mu`.
    """

    default_hyperparam = _default_hyperparam

    def step(self, data, v, grad, lr, momentum):
        v *= momentum
        v -= grad
        data += lr * v


class CorrectedMomentumSGD(VelocityMethod):
    """Momentum SGD with momentum correction.

    Equation (9) of `Accurate, Large Minibatch SGD
    <https://arxiv.org/abs/1706.02677>`_: the velocity accumulates raw
    gradients and the learning rate scales the step, so changing the
    learning rate mid-run does not rescale the accumulated velocity.

    Args:
        lr (float): learning rate.
        momentum (float): exponential decay rate of the velocity.
    """

    rule_class = CorrectedMomentumSGDRule

    def __init__(self, lr=_default_hyperparam.lr,
                 momentum=_default_hyperparam.momentum):
        super().__init__(lr, momentum)
