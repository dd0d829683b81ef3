"""Plain stochastic gradient descent."""
import numpy

from cpuframe import optimizer
from cpuframe.optimizers import _native
from cpuframe.optimizers._checks import check_real

_ndarray = numpy.ndarray
_kernel = []


def _sgd_kernel():
    """The native ``sgd_update_f32`` (csrc/optimizer.cpp), or None."""
    if not _kernel:
        _kernel.append(_native.kernel('sgd_update_f32'))
    return _kernel[0]


def _step(data, grad, lr):
    """``data -= lr * grad``: on float32 NumPy arrays one native pass, the
    same operations bit for bit (no temporary)."""
    if type(data) is _ndarray and type(grad) is _ndarray and \
            _native.float32_scalar(lr):
        kernel = _kernel[0] if _kernel else _sgd_kernel()
        if kernel is not None and not _native.numpy_raises() and \
                kernel(data, grad, lr):
            return
    data -= lr * grad


_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.01


class SGDRule(optimizer.UpdateRule):
    """Update rule of SGD: ``param -= lr * grad``.

    Args:
        parent_hyperparam (~cpuframe.optimizer.Hyperparameter): defaults.
        lr (float): learning rate.
    """

    is_elementwise = True

    def __init__(self, parent_hyperparam=None, lr=None):
        super().__init__(parent_hyperparam or _default_hyperparam)
        if lr is not None:
            self.hyperparam.lr = lr

    def update_core_cpu(self, param):
        grad = param.grad
        if grad is None:
            return
        _step(param.array, grad, self.hyperparam.lr)

    update_core_gpu = update_core_cpu


class _SharedStep:
    """SGD's step shared by its optimizer's NumPy parameters
    (``UpdateRule._shared_step``): ``lr`` read once per update."""

    #: (the update it stands for)
    update_core_cpu = SGDRule.update_core_cpu
    _direct_cpu = optimizer.UpdateRule._direct_cpu

    __slots__ = ('lr',)

    @classmethod
    def read(cls, hp):
        lr = getattr(hp, 'lr', None)
        if lr is None:
            return False
        step = cls()
        step.lr = lr
        return step

    def update(self, rule, state, data, grad):
        # (update_core_cpu's arithmetic with the value it would read; a
        # state SGD does not make is a subclass's: its own way)
        if state:
            return False
        rule.t += 1
        _step(data, grad, self.lr)
        return True


SGDRule._shared_step = _SharedStep


class SGD(optimizer.GradientMethod):
    """Vanilla stochastic gradient descent.

    Args:
        lr (float): learning rate.
    """

    def __init__(self, lr=_default_hyperparam.lr):
        check_real('SGD', 'lr', lr, low=0)
        super().__init__()
        self.hyperparam.lr = lr

    lr = optimizer.HyperparameterProxy('lr')

    def create_update_rule(self):
        return SGDRule(self.hyperparam)
