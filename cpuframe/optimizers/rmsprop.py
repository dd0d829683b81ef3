"""RMSprop."""
from cpuframe import backend, optimizer
from cpuframe.optimizers._checks import check_bool, check_real

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.01
_default_hyperparam.alpha = 0.99
_default_hyperparam.eps = 1e-8
_default_hyperparam.eps_inside_sqrt = False


def _check_eps(where, eps, dtype):
    if eps != 0 and dtype.type(eps) == 0:
        raise ValueError(
            '{}: eps {} is too small for {} (it rounds to zero)'.format(
                where, eps, dtype.name))


class RMSpropRule(optimizer.UpdateRule):
    """Update rule of RMSprop.

    .. math::

        s \\leftarrow \\alpha s + (1 - \\alpha) g^2, \\qquad
        \\theta \\leftarrow \\theta - \\eta g / (\\sqrt{s} + \\epsilon)

    (:math:`\\sqrt{s + \\epsilon}` with ``eps_inside_sqrt``).

    Args:
        parent_hyperparam (~cpuframe.optimizer.Hyperparameter): defaults.
        lr (float): learning rate :math:`\\eta`.
        alpha (float): exponential decay rate of the mean square.
        eps (float): small value for numerical stability.
        eps_inside_sqrt (bool): add ``eps`` inside the square root.
    """

    is_elementwise = True

    def __init__(self, parent_hyperparam=None, lr=None, alpha=None, eps=None,
                 eps_inside_sqrt=None):
        super().__init__(parent_hyperparam or _default_hyperparam)
        if lr is not None:
            self.hyperparam.lr = lr
        if alpha is not None:
            self.hyperparam.alpha = alpha
        if eps is not None:
            self.hyperparam.eps = eps
        if eps_inside_sqrt is not None:
            self.hyperparam.eps_inside_sqrt = eps_inside_sqrt

    def init_state(self, param):
        xp = backend.get_array_module(param.array)
        self.state['ms'] = xp.zeros_like(param.array)

    def update_core_cpu(self, param):
        grad = param.grad
        if grad is None:
            return
        xp = backend.get_array_module(grad)
        hp = self.hyperparam
        _check_eps('RMSprop', hp.eps, grad.dtype)
        ms = self.state['ms']
        ms *= hp.alpha
        ms += (1 - hp.alpha) * grad * grad
        if hp.eps_inside_sqrt:
            denom = xp.sqrt(ms + hp.eps)
        else:
            denom = xp.sqrt(ms) + hp.eps
        data = param.array
        data -= hp.lr * grad / denom

    update_core_gpu = update_core_cpu


class RMSprop(optimizer.GradientMethod):
    """RMSprop (Tieleman and Hinton, 2012).

    Args:
        lr (float): learning rate.
        alpha (float): exponential decay rate of the mean square.
        eps (float): small value for numerical stability.
        eps_inside_sqrt (bool): divide by :math:`\\sqrt{ms + eps}` instead of
            :math:`\\sqrt{ms} + eps` (as some other frameworks do).
    """

    def __init__(self, lr=_default_hyperparam.lr,
                 alpha=_default_hyperparam.alpha, eps=_default_hyperparam.eps,
                 eps_inside_sqrt=_default_hyperparam.eps_inside_sqrt):
        check_real('RMSprop', 'lr', lr, low=0)
        check_real('RMSprop', 'alpha', alpha, low=0, high=1)
        check_real('RMSprop', 'eps', eps, low=0)
        check_bool('RMSprop', 'eps_inside_sqrt', eps_inside_sqrt)
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.alpha = alpha
        self.hyperparam.eps = eps
        self.hyperparam.eps_inside_sqrt = eps_inside_sqrt

    lr = optimizer.HyperparameterProxy('lr')
    alpha = optimizer.HyperparameterProxy('alpha')
    eps = optimizer.HyperparameterProxy('eps')
    eps_inside_sqrt = optimizer.HyperparameterProxy('eps_inside_sqrt')

    def create_update_rule(self):
        return RMSpropRule(self.hyperparam)
