"""M-SVAG: variance-adapted momentum SGD."""
from cpuframe import backend, optimizer
from cpuframe.optimizers._checks import check_real

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.1
_default_hyperparam.beta = 0.9
_default_hyperparam.eta = 1.0
_default_hyperparam.weight_decay_rate = 0


class MSVAGRule(optimizer.UpdateRule):
    """Update rule of M-SVAG.

    With :math:`\\beta^t` the bias correction of step :math:`t`:

    .. math::

        m &\\leftarrow m + (1 - \\beta)(g - m), \\qquad
        v \\leftarrow v + (1 - \\beta)(g^2 - v) \\\\
        \\hat m &= m / (1 - \\beta^t), \\qquad \\hat v = v / (1 - \\beta^t) \\\\
        \\rho &= \\min\\left(\\frac{(1 - \\beta)^2 (1 - \\beta^{2t})}
            {(1 - \\beta^t)^2 (1 - \\beta^2)}, 0.9999\\right), \\qquad
        s = (\\hat v - \\hat m^2) / (1 - \\rho) \\\\
        f &= \\mathrm{clip}(\\hat m^2 / (\\hat m^2 + \\rho s), 0, 1)
            \\quad (0 \\text{ where undefined}) \\\\
        \\theta &\\leftarrow \\theta - \\eta_s (\\eta \\hat m f + \\lambda \\theta)

    Args:
        parent_hyperparam (~cpuframe.optimizer.Hyperparameter): defaults.
        lr (float): learning rate :math:`\\eta`.
        beta (float): decay rate of the moments.
        eta (float): schedule multiplier :math:`\\eta_s`.
        weight_decay_rate (float): decoupled weight decay :math:`\\lambda`.
    """

    is_elementwise = True

    def __init__(self, parent_hyperparam=None, lr=None, beta=None, eta=None,
                 weight_decay_rate=None):
        super().__init__(parent_hyperparam or _default_hyperparam)
        if lr is not None:
            self.hyperparam.lr = lr
        if beta is not None:
            self.hyperparam.beta = beta
        if eta is not None:
            self.hyperparam.eta = eta
        if weight_decay_rate is not None:
            self.hyperparam.weight_decay_rate = weight_decay_rate

    def init_state(self, param):
        xp = backend.get_array_module(param.array)
        self.state['m'] = xp.zeros_like(param.array)
        self.state['v'] = xp.zeros_like(param.array)

    @property
    def beta_power(self):
        """:math:`\\beta^t` of the current step (derived from ``t``, so a
        resumed run continues exactly)."""
        return self.hyperparam.beta ** max(self.t, 1)

    def update_core_cpu(self, param):
        grad = param.grad
        if grad is None:
            return
        xp = backend.get_array_module(grad)
        hp = self.hyperparam
        beta, beta_power = hp.beta, self.beta_power
        rho = ((1 - beta) ** 2 * (1 - beta_power ** 2) /
               ((1 - beta_power) ** 2 * (1 - beta ** 2)))
        rho = min(rho, 0.9999)
        m, v = self.state['m'], self.state['v']
        m += (1 - beta) * (grad - m)
        v += (1 - beta) * (grad * grad - v)
        mt = m / (1 - beta_power)
        vt = v / (1 - beta_power)
        mt2 = mt * mt
        s = (vt - mt2) / (1 - rho)
        denom = mt2 + rho * s
        positive = denom > 0
        factor = xp.where(positive, mt2 / xp.where(positive, denom, 1), 0)
        factor = xp.clip(factor, 0, 1)
        data = param.array
        data -= hp.eta * (hp.lr * mt * factor + hp.weight_decay_rate * data)

    update_core_gpu = update_core_cpu


class MSVAG(optimizer.GradientMethod):
    """M-SVAG (`Dissecting Adam <https://arxiv.org/abs/1705.07774>`_), with
    decoupled weight decay as in AdamW.

    Args:
        lr (float): learning rate.
        beta (float): decay rate of the first and second moments.
        eta (float): schedule multiplier (e.g. for warm restarts).
        weight_decay_rate (float): decoupled weight decay rate.
    """

    def __init__(self, lr=_default_hyperparam.lr,
                 beta=_default_hyperparam.beta,
                 eta=_default_hyperparam.eta,
                 weight_decay_rate=_default_hyperparam.weight_decay_rate):
        check_real('MSVAG', 'lr', lr, low=0)
        check_real('MSVAG', 'beta', beta, low=0, high=1, high_open=True)
        check_real('MSVAG', 'eta', eta, low=0)
        check_real('MSVAG', 'weight_decay_rate', weight_decay_rate, low=0)
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.beta = beta
        self.hyperparam.eta = eta
        self.hyperparam.weight_decay_rate = weight_decay_rate

    lr = optimizer.HyperparameterProxy('lr')
    beta = optimizer.HyperparameterProxy('beta')
    eta = optimizer.HyperparameterProxy('eta')
    weight_decay_rate = optimizer.HyperparameterProxy('weight_decay_rate')

    def create_update_rule(self):
        return MSVAGRule(self.hyperparam)
