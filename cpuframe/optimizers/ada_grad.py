"""AdaGrad."""
from cpuframe import backend, optimizer
from cpuframe.optimizers._checks import check_real

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.001
_default_hyperparam.eps = 1e-8


class AdaGradRule(optimizer.UpdateRule):
    """Update rule of AdaGrad.

    .. math::

        h \\leftarrow h + g^2, \\qquad
        \\theta \\leftarrow \\theta - \\eta g / (\\sqrt{h} + \\epsilon)

    Args:
        parent_hyperparam (~cpuframe.optimizer.Hyperparameter): defaults.
        lr (float): learning rate :math:`\\eta`.
        eps (float): small value for numerical stability.
    """

    is_elementwise = True

    def __init__(self, parent_hyperparam=None, lr=None, eps=None):
        super().__init__(parent_hyperparam or _default_hyperparam)
        if lr is not None:
            self.hyperparam.lr = lr
        if eps is not None:
            self.hyperparam.eps = eps

    def init_state(self, param):
        xp = backend.get_array_module(param.array)
        self.state['h'] = xp.zeros_like(param.array)

    def update_core_cpu(self, param):
        grad = param.grad
        if grad is None:
            return
        xp = backend.get_array_module(grad)
        hp = self.hyperparam
        h = self.state['h']
        h += grad * grad
        data = param.array
        data -= hp.lr * grad / (xp.sqrt(h) + hp.eps)

    update_core_gpu = update_core_cpu


class AdaGrad(optimizer.GradientMethod):
    """AdaGrad (http://jmlr.org/papers/v12/duchi11a.html).

    Args:
        lr (float): learning rate.
        eps (float): small value for numerical stability.
    """

    def __init__(self, lr=_default_hyperparam.lr, eps=_default_hyperparam.eps):
        check_real('AdaGrad', 'lr', lr, low=0)
        check_real('AdaGrad', 'eps', eps, low=0)
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.eps = eps

    lr = optimizer.HyperparameterProxy('lr')
    eps = optimizer.HyperparameterProxy('eps')

    def create_update_rule(self):
        return AdaGradRule(self.hyperparam)
