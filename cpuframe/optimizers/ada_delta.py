"""AdaDelta."""
from cpuframe import backend, optimizer
from cpuframe.optimizers._checks import check_real

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.rho = 0.95
_default_hyperparam.eps = 1e-6


class AdaDeltaRule(optimizer.UpdateRule):
    """Update rule of AdaDelta.

    .. math::

        s &\\leftarrow \\rho s + (1 - \\rho) g^2 \\\\
        \\Delta &= \\sqrt{(d + \\epsilon) / (s + \\epsilon)}\\, g \\\\
        d &\\leftarrow \\rho d + (1 - \\rho) \\Delta^2 \\\\
        \\theta &\\leftarrow \\theta - \\Delta

    Args:
        parent_hyperparam (~cpuframe.optimizer.Hyperparameter): defaults.
        rho (float): exponential decay rate of the moments.
        eps (float): small value for numerical stability.
    """

    is_elementwise = True

    def __init__(self, parent_hyperparam=None, rho=None, eps=None):
        super().__init__(parent_hyperparam or _default_hyperparam)
        if rho is not None:
            self.hyperparam.rho = rho
        if eps is not None:
            self.hyperparam.eps = eps

    def init_state(self, param):
        xp = backend.get_array_module(param.array)
        self.state['msg'] = xp.zeros_like(param.array)
        self.state['msdx'] = xp.zeros_like(param.array)

    def update_core_cpu(self, param):
        grad = param.grad
        if grad is None:
            return
        xp = backend.get_array_module(grad)
        rho, eps = self.hyperparam.rho, self.hyperparam.eps
        msg, msdx = self.state['msg'], self.state['msdx']
        msg *= rho
        msg += (1 - rho) * grad * grad
        dx = xp.sqrt((msdx + eps) / (msg + eps)) * grad
        msdx *= rho
        msdx += (1 - rho) * dx * dx
        data = param.array
        data -= dx

    update_core_gpu = update_core_cpu


class AdaDelta(optimizer.GradientMethod):
    """AdaDelta (https://arxiv.org/abs/1212.5701).

    Args:
        rho (float): exponential decay rate of the moments.
        eps (float): small value for numerical stability.
    """

    def __init__(self, rho=_default_hyperparam.rho,
                 eps=_default_hyperparam.eps):
        check_real('AdaDelta', 'rho', rho, low=0, high=1)
        check_real('AdaDelta', 'eps', eps, low=0)
        super().__init__()
        self.hyperparam.rho = rho
        self.hyperparam.eps = eps

    rho = optimizer.HyperparameterProxy('rho')
    eps = optimizer.HyperparameterProxy('eps')

    def create_update_rule(self):
        return AdaDeltaRule(self.hyperparam)
