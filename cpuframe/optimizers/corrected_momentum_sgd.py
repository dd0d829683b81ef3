"""Momentum SGD with the learning rate outside the velocity."""
from cpuframe import backend, optimizer
from cpuframe.optimizers._checks import check_real

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.01
_default_hyperparam.momentum = 0.9


class CorrectedMomentumSGDRule(optimizer.UpdateRule):
    """Update rule of corrected momentum SGD.

    .. math::

        u \\leftarrow \\mu u - g, \\qquad \\theta \\leftarrow \\theta + \\eta u

    Args:
        parent_hyperparam (~cpuframe.optimizer.Hyperparameter): defaults.
        lr (float): learning rate :math:`\\eta`.
        momentum (float): momentum :math:`\\mu`.
    """

    is_elementwise = True

    def __init__(self, parent_hyperparam=None, lr=None, momentum=None):
        super().__init__(parent_hyperparam or _default_hyperparam)
        if lr is not None:
            self.hyperparam.lr = lr
        if momentum is not None:
            self.hyperparam.momentum = momentum

    def init_state(self, param):
        xp = backend.get_array_module(param.array)
        self.state['v'] = xp.zeros_like(param.array)

    def update_core_cpu(self, param):
        grad = param.grad
        if grad is None:
            return
        v = self.state['v']
        v *= self.hyperparam.momentum
        v -= grad
        data = param.array
        data += self.hyperparam.lr * v

    update_core_gpu = update_core_cpu


class CorrectedMomentumSGD(optimizer.GradientMethod):
    """Momentum SGD with momentum correction.

    Equation (9) of `Accurate, Large Minibatch SGD
    <https://arxiv.org/abs/1706.02677>`_: the velocity accumulates raw
    gradients and the learning rate scales the step, so changing the
    learning rate mid-run does not rescale the accumulated velocity.

    Args:
        lr (float): learning rate.
        momentum (float): exponential decay rate of the velocity.
    """

    def __init__(self, lr=_default_hyperparam.lr,
                 momentum=_default_hyperparam.momentum):
        check_real('CorrectedMomentumSGD', 'lr', lr, low=0)
        check_real('CorrectedMomentumSGD', 'momentum', momentum, low=0)
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.momentum = momentum

    lr = optimizer.HyperparameterProxy('lr')
    momentum = optimizer.HyperparameterProxy('momentum')

    def create_update_rule(self):
        return CorrectedMomentumSGDRule(self.hyperparam)
