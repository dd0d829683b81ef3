"""What momentum SGD, corrected momentum SGD and Nesterov's accelerated
gradient share: hyperparameters ``lr`` and ``momentum``, one velocity state
``v`` shaped like the parameter; the rules differ only in their step."""
import numpy

from cpuframe import backend, optimizer
from cpuframe.optimizers._checks import check_real


class VelocityRule(optimizer.UpdateRule):
    """An update rule with ``lr``, ``momentum`` and a velocity ``v``.

    Subclasses set ``default_hyperparam`` and implement
    ``step(data, v, grad, lr, momentum)``, updating ``data`` and ``v`` in
    place (NumPy, CuPy or Intel64 arrays alike).
    """

    is_elementwise = True
    default_hyperparam = None

    def __init__(self, parent_hyperparam=None, lr=None, momentum=None):
        super().__init__(parent_hyperparam or self.default_hyperparam)
        if lr is not None:
            self.hyperparam.lr = lr
        if momentum is not None:
            self.hyperparam.momentum = momentum

    def init_state(self, param):
        xp = backend.get_array_module(param.array)
        self.state['v'] = xp.zeros_like(param.array)

    def step(self, data, v, grad, lr, momentum):
        raise NotImplementedError

    def update_core_cpu(self, param):
        grad = param.grad
        if grad is None:
            return
        hp = self.hyperparam
        self.step(param.array, self.state['v'], grad, hp.lr, hp.momentum)

    update_core_gpu = update_core_cpu


class _SharedStep:
    """A velocity rule's step shared by its optimizer's NumPy parameters
    (``UpdateRule._shared_step``): ``lr`` and ``momentum`` read once per
    update, then each rule's own ``step``."""

    #: (the update it stands for)
    update_core_cpu = VelocityRule.update_core_cpu
    _direct_cpu = optimizer.UpdateRule._direct_cpu

    __slots__ = ('lr', 'momentum')

    @classmethod
    def read(cls, hp):
        lr = getattr(hp, 'lr', None)
        momentum = getattr(hp, 'momentum', None)
        if lr is None or momentum is None:
            return False
        step = cls()
        step.lr = lr
        step.momentum = momentum
        return step

    def update(self, rule, state, data, grad):
        v = state.get('v')
        if type(v) is not numpy.ndarray or len(state) != 1:
            return False
        rule.t += 1
        rule.step(data, v, grad, self.lr, self.momentum)
        return True


VelocityRule._shared_step = _SharedStep


class VelocityMethod(optimizer.GradientMethod):
    """A gradient method whose rules are ``rule_class`` (a VelocityRule)."""

    rule_class = None

    def __init__(self, lr, momentum):
        name = type(self).__name__
        check_real(name, 'lr', lr, low=0)
        check_real(name, 'momentum', momentum, low=0)
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.momentum = momentum

    lr = optimizer.HyperparameterProxy('lr')
    momentum = optimizer.HyperparameterProxy('momentum')

    def create_update_rule(self):
        return self.rule_class(self.hyperparam)
