"""Nesterov's accelerated gradient."""
from cpuframe import backend, optimizer
from cpuframe.optimizers._checks import check_real

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.01
_default_hyperparam.momentum = 0.9


class NesterovAGRule(optimizer.UpdateRule):
    """Update rule of Nesterov's accelerated gradient.

    .. math::

        v \\leftarrow \\mu v - \\eta g, \\qquad
        \\theta \\leftarrow \\theta + \\mu^2 v - (1 + \\mu) \\eta g

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
        lr, momentum = self.hyperparam.lr, self.hyperparam.momentum
        v = self.state['v']
        v *= momentum
        v -= lr * grad
        data = param.array
        data += momentum * momentum * v
        data -= (1 + momentum) * lr * grad

    update_core_gpu = update_core_cpu


class NesterovAG(optimizer.GradientMethod):
    """Nesterov's accelerated gradient (https://arxiv.org/abs/1212.0901).

    Args:
        lr (float): learning rate.
        momentum (float): exponential decay rate of the velocity.
    """

    def __init__(self, lr=_default_hyperparam.lr,
                 momentum=_default_hyperparam.momentum):
        check_real('NesterovAG', 'lr', lr, low=0)
        check_real('NesterovAG', 'momentum', momentum, low=0)
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.momentum = momentum

    lr = optimizer.HyperparameterProxy('lr')
    momentum = optimizer.HyperparameterProxy('momentum')

    def create_update_rule(self):
        return NesterovAGRule(self.hyperparam)
