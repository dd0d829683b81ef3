"""Simon Funk's SMORMS3."""
from cpuframe import backend, optimizer
from cpuframe.optimizers._checks import check_real

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.001
_default_hyperparam.eps = 1e-16


class SMORMS3Rule(optimizer.UpdateRule):
    """Update rule of SMORMS3.

    .. math::

        r &= 1 / (m + 1) \\\\
        \\bar g &\\leftarrow (1 - r) \\bar g + r g, \\qquad
        \\bar{g^2} \\leftarrow (1 - r) \\bar{g^2} + r g^2 \\\\
        x &= \\bar g^2 / (\\bar{g^2} + \\epsilon) \\\\
        \\theta &\\leftarrow \\theta - g \\min(x, \\eta) /
            (\\sqrt{\\bar{g^2}} + \\epsilon) \\\\
        m &\\leftarrow 1 + m (1 - x)

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
        self.state['mem'] = xp.ones_like(param.array)
        self.state['g'] = xp.zeros_like(param.array)
        self.state['g2'] = xp.zeros_like(param.array)

    def update_core_cpu(self, param):
        grad = param.grad
        if grad is None:
            return
        xp = backend.get_array_module(grad)
        lr, eps = self.hyperparam.lr, self.hyperparam.eps
        mem, g, g2 = self.state['mem'], self.state['g'], self.state['g2']
        r = 1 / (mem + 1)
        g *= 1 - r
        g += r * grad
        g2 *= 1 - r
        g2 += r * grad * grad
        x = g * g / (g2 + eps)
        data = param.array
        data -= grad * xp.minimum(x, lr) / (xp.sqrt(g2) + eps)
        mem *= 1 - x
        mem += 1

    update_core_gpu = update_core_cpu


class SMORMS3(optimizer.GradientMethod):
    """Simon Funk's SMORMS3 (http://sifter.org/~simon/journal/20150420.html).

    Args:
        lr (float): learning rate.
        eps (float): small value for numerical stability.
    """

    def __init__(self, lr=_default_hyperparam.lr, eps=_default_hyperparam.eps):
        check_real('SMORMS3', 'lr', lr, low=0)
        check_real('SMORMS3', 'eps', eps, low=0)
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.eps = eps

    lr = optimizer.HyperparameterProxy('lr')
    eps = optimizer.HyperparameterProxy('eps')

    def create_update_rule(self):
        return SMORMS3Rule(self.hyperparam)
