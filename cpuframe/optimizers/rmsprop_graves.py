"""Alex Graves's RMSprop."""
from cpuframe import backend, optimizer
from cpuframe.optimizers._checks import check_real

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 1e-4
_default_hyperparam.alpha = 0.95
_default_hyperparam.momentum = 0.9
_default_hyperparam.eps = 1e-4


class RMSpropGravesRule(optimizer.UpdateRule):
    """Update rule of Graves's RMSprop.

    .. math::

        n &\\leftarrow \\alpha n + (1 - \\alpha) g^2 \\\\
        \\bar g &\\leftarrow \\alpha \\bar g + (1 - \\alpha) g \\\\
        \\delta &\\leftarrow \\mu \\delta -
            \\eta g / \\sqrt{n - \\bar g^2 + \\epsilon} \\\\
        \\theta &\\leftarrow \\theta + \\delta

    Args:
        parent_hyperparam (~cpuframe.optimizer.Hyperparameter): defaults.
        lr (float): learning rate :math:`\\eta`.
        alpha (float): decay rate of the first and second moments.
        momentum (float): decay rate of the step :math:`\\mu`.
        eps (float): small value for numerical stability.
    """

    is_elementwise = True

    def __init__(self, parent_hyperparam=None, lr=None, alpha=None,
                 momentum=None, eps=None):
        super().__init__(parent_hyperparam or _default_hyperparam)
        if lr is not None:
            self.hyperparam.lr = lr
        if alpha is not None:
            self.hyperparam.alpha = alpha
        if momentum is not None:
            self.hyperparam.momentum = momentum
        if eps is not None:
            self.hyperparam.eps = eps

    def init_state(self, param):
        xp = backend.get_array_module(param.array)
        self.state['n'] = xp.zeros_like(param.array)
        self.state['g'] = xp.zeros_like(param.array)
        self.state['delta'] = xp.zeros_like(param.array)

    def update_core_cpu(self, param):
        grad = param.grad
        if grad is None:
            return
        xp = backend.get_array_module(grad)
        hp = self.hyperparam
        n, g, delta = self.state['n'], self.state['g'], self.state['delta']
        n *= hp.alpha
        n += (1 - hp.alpha) * grad * grad
        g *= hp.alpha
        g += (1 - hp.alpha) * grad
        delta *= hp.momentum
        delta -= hp.lr * grad / xp.sqrt(n - g * g + hp.eps)
        data = param.array
        data += delta

    update_core_gpu = update_core_cpu


class RMSpropGraves(optimizer.GradientMethod):
    """Alex Graves's RMSprop (https://arxiv.org/abs/1308.0850).

    Args:
        lr (float): learning rate.
        alpha (float): decay rate of the first and second moments of the
            raw gradient.
        momentum (float): decay rate of the step.
        eps (float): small value for numerical stability.
    """

    def __init__(self, lr=_default_hyperparam.lr,
                 alpha=_default_hyperparam.alpha,
                 momentum=_default_hyperparam.momentum,
                 eps=_default_hyperparam.eps):
        check_real('RMSpropGraves', 'lr', lr, low=0)
        check_real('RMSpropGraves', 'alpha', alpha, low=0, high=1)
        check_real('RMSpropGraves', 'momentum', momentum, low=0)
        check_real('RMSpropGraves', 'eps', eps, low=0)
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.alpha = alpha
        self.hyperparam.momentum = momentum
        self.hyperparam.eps = eps

    lr = optimizer.HyperparameterProxy('lr')
    alpha = optimizer.HyperparameterProxy('alpha')
    momentum = optimizer.HyperparameterProxy('momentum')
    eps = optimizer.HyperparameterProxy('eps')

    def create_update_rule(self):
        return RMSpropGravesRule(self.hyperparam)
