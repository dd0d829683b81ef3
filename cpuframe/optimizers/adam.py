"""Adam and its variants: AdamW, AMSGrad, AdaBound, AMSBound."""
import math
import operator
import warnings

import numpy

from cpuframe import backend, optimizer
from cpuframe.optimizers import _native
from cpuframe.optimizers._checks import check_bool, check_real
from cpuframe.optimizers._native import numpy_raises as _numpy_raises

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.alpha = 0.001
_default_hyperparam.beta1 = 0.9
_default_hyperparam.beta2 = 0.999
_default_hyperparam.eps = 1e-8
_default_hyperparam.eta = 1.0
_default_hyperparam.weight_decay_rate = 0
_default_hyperparam.amsgrad = False
_default_hyperparam.adabound = False
_default_hyperparam.final_lr = 0.1
_default_hyperparam.gamma = 1e-3


def _learning_rate(hp, t):
    if t == 0:
        raise RuntimeError(
            "Adam: can't determine the learning rate because the update "
            "steps have not been started (t == 0)")
    return _alpha_t(hp.alpha, hp.beta1, hp.beta2, t)


def _alpha_t(alpha, beta1, beta2, t):
    # (the one formula of the bias-corrected step size: every update path
    # gets the same float from it)
    return alpha * math.sqrt(1. - math.pow(beta2, t)) / \
        (1. - math.pow(beta1, t))


_kernel = []


def _native_kernel():
    """The native ``adam_update_f32`` (csrc/optimizer.cpp), or None."""
    if not _kernel:
        _kernel.append(_native.kernel('adam_update_f32'))
    return _kernel[0]


_NATIVE_HYPERPARAMS = operator.itemgetter(
    'amsgrad', 'adabound', 'alpha', 'beta1', 'beta2', 'eps',
    'weight_decay_rate', 'eta')


def _values(hp, names):
    """The hyperparameters ``names`` (an ``operator.itemgetter``) of ``hp``,
    looked up along its parents' dictionaries (what ``getattr`` finds,
    without ``__getattr__`` per name); None if one is missing or ``hp`` is
    not a plain Hyperparameter."""
    if type(hp) is not optimizer.Hyperparameter:
        return None
    d = hp.__dict__
    parent = d.get('_parent')
    if parent is not None and len(d) == 1 and \
            type(parent) is optimizer.Hyperparameter:
        # (a rule without values of its own under its optimizer's: the
        # common chain, read from the optimizer's dictionary alone)
        pd = parent.__dict__
        if pd.get('_parent') is None:
            try:
                return names(pd)
            except KeyError:
                return None
    if parent is not None:
        # (a rule's own values over its optimizer's, the common chain)
        chain = [d]
        while parent is not None:
            if type(parent) is not optimizer.Hyperparameter:
                return None
            chain.append(parent.__dict__)
            parent = chain[-1].get('_parent')
        d = {}
        for level in reversed(chain):
            d.update(level)
    try:
        return names(d)
    except KeyError:
        return None


def _intermediate_dtype(dtype):
    # float16 moments are combined in float32, where eps does not vanish.
    return numpy.dtype(numpy.float32) if dtype == numpy.float16 else dtype


class AdamRule(optimizer.UpdateRule):
    """Update rule of Adam (and AdamW, AMSGrad, AdaBound, AMSBound).

    With :math:`\\alpha_t = \\alpha \\sqrt{1 - \\beta_2^t} / (1 - \\beta_1^t)`:

    .. math::

        m &\\leftarrow m + (1 - \\beta_1)(g - m) \\\\
        v &\\leftarrow v + (1 - \\beta_2)(g^2 - v) \\\\
        \\hat v &\\leftarrow \\max(\\hat v, v) \\quad
            \\text{(AMSGrad; otherwise } \\hat v = v) \\\\
        s &= \\alpha_t / (\\sqrt{\\hat v} + \\epsilon), \\quad
            \\text{clipped to } [l_t, u_t] \\text{ with AdaBound} \\\\
        \\theta &\\leftarrow \\theta - \\eta (s\\, m + \\lambda \\theta)

    AdaBound's bounds are :math:`l_t = f (1 - 1 / (\\gamma t + 1))` and
    :math:`u_t = f (1 + 1 / (\\gamma t))`, with the final learning rate
    :math:`f` scaled by ``alpha / initial_alpha`` so that schedules on
    ``alpha`` move it too.

    Args:
        parent_hyperparam (~cpuframe.optimizer.Hyperparameter): defaults.
        alpha (float): coefficient of the learning rate.
        beta1 (float): decay rate of the first moment.
        beta2 (float): decay rate of the second moment.
        eps (float): small value for numerical stability.
        eta (float): schedule multiplier.
        weight_decay_rate (float): decoupled weight decay :math:`\\lambda`.
        amsgrad (bool): use AMSGrad.
        adabound (bool): use AdaBound.
        final_lr (float): AdaBound's final (SGD) learning rate.
        gamma (float): AdaBound's convergence speed of the bounds.
    """

    is_elementwise = True

    def __init__(self, parent_hyperparam=None, alpha=None, beta1=None,
                 beta2=None, eps=None, eta=None, weight_decay_rate=None,
                 amsgrad=None, adabound=None, final_lr=None, gamma=None):
        super().__init__(parent_hyperparam or _default_hyperparam)
        given = dict(alpha=alpha, beta1=beta1, beta2=beta2, eps=eps, eta=eta,
                     weight_decay_rate=weight_decay_rate, amsgrad=amsgrad,
                     adabound=adabound, final_lr=final_lr, gamma=gamma)
        for name, value in given.items():
            if value is not None:
                setattr(self.hyperparam, name, value)
        if self.hyperparam.adabound:
            self.initial_alpha = self.hyperparam.alpha

    def init_state(self, param):
        xp = backend.get_array_module(param.array)
        self.state['m'] = xp.zeros_like(param.array)
        self.state['v'] = xp.zeros_like(param.array)
        if self.hyperparam.amsgrad:
            self.state['vhat'] = xp.zeros_like(param.array)

    def _check_eps(self, dtype):
        eps = self.hyperparam.eps
        if eps != 0 and dtype.type(eps) == 0:
            raise ValueError(
                'Adam: eps {} is too small for {} (it rounds to zero)'.format(
                    eps, dtype.name))

    def update_core_cpu(self, param):
        grad = param.grad
        if grad is None:
            return
        data = param.array
        if type(data) is numpy.ndarray and type(grad) is numpy.ndarray and \
                data.dtype == numpy.float32 and self._update_native(data, grad):
            return
        xp = backend.get_array_module(grad)
        hp = self.hyperparam
        dtype = _intermediate_dtype(param.dtype)
        self._check_eps(dtype)
        m, v = self.state['m'], self.state['v']
        if xp is numpy and not hp.amsgrad and not hp.adabound and \
                type(param.array) is numpy.ndarray and \
                param.array.dtype == dtype == grad.dtype == m.dtype == v.dtype:
            self._update_in_place(param.array, grad, m, v, hp)
            return
        m += (1 - hp.beta1) * (grad - m)
        v += (1 - hp.beta2) * (grad * grad - v)
        if hp.amsgrad:
            if 'vhat' not in self.state:
                # amsgrad switched on after the state was created
                self.state['vhat'] = v.copy()
            vhat = self.state['vhat']
            xp.maximum(vhat, v, out=vhat)
        else:
            vhat = v
        step = self.alpha_t / (xp.sqrt(vhat.astype(dtype, copy=False)) +
                               hp.eps)
        if hp.adabound:
            lower, upper = self.bounds
            step = xp.clip(step, lower, upper)
        data = param.array
        data -= (hp.eta * (step * m + hp.weight_decay_rate * data)).astype(
            data.dtype, copy=False)

    def _direct_cpu(self, param, data, grad):
        # (UpdateRule._update_direct: data a NumPy array, grad a writeable
        # NumPy array or None; the native pass without reading them again)
        if type(self).update_core_cpu is not AdamRule.update_core_cpu:
            self.update_core_cpu(param)     # (a subclass's own)
            return
        if grad is None:
            return
        if data.dtype == numpy.float32 and self._update_native(data, grad):
            return
        self.update_core_cpu(param)

    def _update_native(self, data, grad):
        """Plain Adam on float32 NumPy arrays in one native pass
        (``_update_in_place``'s float32 operations in its order: bit for
        bit), each hyperparameter read once; False where it does not apply
        (no native module, AMSGrad/AdaBound, other dtypes or layouts, NumPy
        set to raise on floating-point errors)."""
        kernel = _kernel[0] if _kernel else _native_kernel()
        if kernel is None:
            return False
        state = self._state
        m, v = state['m'], state['v']
        if type(m) is not numpy.ndarray or type(v) is not numpy.ndarray:
            return False
        hp = _values(self.hyperparam, _NATIVE_HYPERPARAMS)
        if hp is None:
            return False
        amsgrad, adabound, alpha, beta1, beta2, eps, weight_decay, eta = hp
        if amsgrad or adabound or _numpy_raises():
            return False
        if eps != 0 and abs(eps) < 1e-44:
            return False          # (float32 eps may be 0: the NumPy path raises)
        if type(self).alpha_t is AdamRule.alpha_t:
            t = self.t
            if t == 0:
                return False      # (the NumPy path raises the error)
            # _learning_rate with the values read above
            alpha_t = _alpha_t(alpha, beta1, beta2, t)
        else:
            alpha_t = self.alpha_t
        # (False: not all float32, C-contiguous and writeable; nothing done)
        return kernel(data, grad, m, v, 1 - beta1, 1 - beta2, eps, alpha_t,
                      weight_decay, eta)

    def _update_in_place(self, data, grad, m, v, hp):
        # update_core_cpu's plain-Adam arithmetic, operation for operation
        # (the same roundings), in two scratch arrays instead of ~10 fresh
        # temporaries: on a small model's parameters allocation is the cost.
        t = grad - m
        t *= 1 - hp.beta1
        m += t
        numpy.multiply(grad, grad, out=t)
        t -= v
        t *= 1 - hp.beta2
        v += t
        s = numpy.sqrt(v)
        s += hp.eps
        numpy.divide(self.alpha_t, s, out=s)
        s *= m
        numpy.multiply(hp.weight_decay_rate, data, out=t)
        s += t
        s *= hp.eta
        data -= s

    update_core_gpu = update_core_cpu

    @property
    def alpha_t(self):
        """The bias-corrected step size of the current step."""
        return _learning_rate(self.hyperparam, self.t)

    @property
    def lr(self):
        """Deprecated alias of :attr:`alpha_t` (as in Chainer v6+)."""
        warnings.warn('AdamRule.lr is deprecated; use AdamRule.alpha_t',
                      DeprecationWarning, stacklevel=2)
        return self.alpha_t

    @property
    def bounds(self):
        """AdaBound's ``(lower, upper)`` bounds of the step at this ``t``."""
        if self.t == 0:
            raise RuntimeError(
                "AdaBound: can't determine the bounds because the update "
                "steps have not been started (t == 0)")
        hp = self.hyperparam
        if getattr(self, 'initial_alpha', None) is None:
            # adabound switched on after this rule was created
            self.initial_alpha = hp.alpha
        final_lr = hp.final_lr * hp.alpha / self.initial_alpha
        lower = final_lr * (1.0 - 1.0 / (hp.gamma * self.t + 1))
        upper = final_lr * (1.0 + 1.0 / (hp.gamma * self.t))
        return lower, upper


class _SharedStep:
    """Adam's step shared by its optimizer's plain float32 NumPy parameters
    (``UpdateRule._shared_step``): the hyperparameters, NumPy's error state
    and the native kernel read once per update, the step size once per
    ``t``; each parameter's own checks are those of ``_update_native``
    (~470 bytecodes per parameter through ``_update_direct``, ~150 here)."""

    #: (the update it stands for)
    update_core_cpu = AdamRule.update_core_cpu
    _direct_cpu = AdamRule._direct_cpu

    __slots__ = ('kernel', 'alpha', 'beta1', 'beta2', 'one_minus_beta1',
                 'one_minus_beta2', 'eps', 'weight_decay', 'eta', 't',
                 'alpha_t')

    @classmethod
    def read(cls, hp):
        """The shared step, or False where the native pass does not apply
        to rules reading ``hp`` (no native module, AMSGrad, AdaBound, a
        missing value, NumPy set to raise, an eps that rounds to zero in
        float32)."""
        kernel = _kernel[0] if _kernel else _native_kernel()
        if kernel is None:
            return False
        values = _values(hp, _NATIVE_HYPERPARAMS)
        if values is None:
            return False
        amsgrad, adabound, alpha, beta1, beta2, eps, weight_decay, eta = \
            values
        if amsgrad or adabound or _numpy_raises() or (
                eps != 0 and abs(eps) < 1e-44):
            return False
        step = cls()
        step.kernel = kernel
        step.alpha = alpha
        step.beta1 = beta1
        step.beta2 = beta2
        step.one_minus_beta1 = 1 - beta1
        step.one_minus_beta2 = 1 - beta2
        step.eps = eps
        step.weight_decay = weight_decay
        step.eta = eta
        step.t = None
        step.alpha_t = None
        return step

    def update(self, rule, state, data, grad):
        if type(rule) is not AdamRule or len(state) != 2:
            return False      # (a subclass may have its own alpha_t)
        m = state.get('m')
        v = state.get('v')
        if type(m) is not _ndarray or type(v) is not _ndarray:
            return False
        t = rule.t + 1
        if t != self.t:
            self.alpha_t = _alpha_t(self.alpha, self.beta1, self.beta2, t)
            self.t = t
        rule.t = t
        # (False: not all float32, C-contiguous and writeable; nothing done)
        if self.kernel(data, grad, m, v, self.one_minus_beta1,
                       self.one_minus_beta2, self.eps, self.alpha_t,
                       self.weight_decay, self.eta):
            return True
        rule.t = t - 1
        return False


_ndarray = numpy.ndarray
AdamRule._shared_step = _SharedStep


def _check_adam_args(where, alpha, beta1, beta2, eps, eta, weight_decay_rate,
                     amsgrad, adabound, final_lr, gamma):
    check_real(where, 'alpha', alpha, low=0)
    check_real(where, 'beta1', beta1, low=0, high=1, high_open=True)
    check_real(where, 'beta2', beta2, low=0, high=1, high_open=True)
    check_real(where, 'eps', eps, low=0)
    check_real(where, 'eta', eta, low=0)
    check_real(where, 'weight_decay_rate', weight_decay_rate, low=0)
    check_bool(where, 'amsgrad', amsgrad)
    check_bool(where, 'adabound', adabound)
    check_real(where, 'final_lr', final_lr, low=0)
    check_real(where, 'gamma', gamma, low=0)
    if adabound and gamma == 0:
        raise ValueError('{}: gamma must be > 0 with adabound'.format(where))


class Adam(optimizer.GradientMethod):
    """Adam (https://arxiv.org/abs/1412.6980).

    ``eta`` and ``weight_decay_rate`` give AdamW's decoupled weight decay
    (`Fixing Weight Decay Regularization in Adam
    <https://openreview.net/forum?id=rk6qdGgCZ>`_); with the defaults this
    is plain Adam.  ``amsgrad`` gives AMSGrad (`On the Convergence of Adam
    and Beyond <https://openreview.net/forum?id=ryQu7f-RZ>`_), ``adabound``
    AdaBound, and both AMSBound (`Adaptive Gradient Methods with Dynamic
    Bound of Learning Rate <https://openreview.net/forum?id=Bkg3g2R9FX>`_).

    Args:
        alpha (float): coefficient of the learning rate.
        beta1 (float): decay rate of the first moment.
        beta2 (float): decay rate of the second moment.
        eps (float): small value for numerical stability.
        eta (float): schedule multiplier (e.g. for warm restarts).
        weight_decay_rate (float): decoupled weight decay rate.
        amsgrad (bool): use AMSGrad.
        adabound (bool): use AdaBound.
        final_lr (float): AdaBound's final (SGD) learning rate.
        gamma (float): AdaBound's convergence speed of the bounds.
    """

    def __init__(self,
                 alpha=_default_hyperparam.alpha,
                 beta1=_default_hyperparam.beta1,
                 beta2=_default_hyperparam.beta2,
                 eps=_default_hyperparam.eps,
                 eta=_default_hyperparam.eta,
                 weight_decay_rate=_default_hyperparam.weight_decay_rate,
                 amsgrad=_default_hyperparam.amsgrad,
                 adabound=_default_hyperparam.adabound,
                 final_lr=_default_hyperparam.final_lr,
                 gamma=_default_hyperparam.gamma):
        _check_adam_args(type(self).__name__, alpha, beta1, beta2, eps, eta,
                         weight_decay_rate, amsgrad, adabound, final_lr, gamma)
        super().__init__()
        hp = self.hyperparam
        hp.alpha = alpha
        hp.beta1 = beta1
        hp.beta2 = beta2
        hp.eps = eps
        hp.eta = eta
        hp.weight_decay_rate = weight_decay_rate
        hp.amsgrad = amsgrad
        hp.adabound = adabound
        hp.final_lr = final_lr
        hp.gamma = gamma

    alpha = optimizer.HyperparameterProxy('alpha')
    beta1 = optimizer.HyperparameterProxy('beta1')
    beta2 = optimizer.HyperparameterProxy('beta2')
    eps = optimizer.HyperparameterProxy('eps')
    eta = optimizer.HyperparameterProxy('eta')
    weight_decay_rate = optimizer.HyperparameterProxy('weight_decay_rate')
    amsgrad = optimizer.HyperparameterProxy('amsgrad')
    adabound = optimizer.HyperparameterProxy('adabound')
    final_lr = optimizer.HyperparameterProxy('final_lr')
    gamma = optimizer.HyperparameterProxy('gamma')

    def create_update_rule(self):
        return AdamRule(self.hyperparam)

    @property
    def alpha_t(self):
        """The bias-corrected step size :math:`\\alpha_t` at step ``t``."""
        return _learning_rate(self.hyperparam, self.t)

    @property
    def lr(self):
        """Deprecated alias of :attr:`alpha_t` (as in Chainer v6+)."""
        warnings.warn('Adam.lr is deprecated; use Adam.alpha_t',
                      DeprecationWarning, stacklevel=2)
        return self.alpha_t


class AdamW(Adam):
    """AdamW: :class:`Adam` with decoupled weight decay.

    Args:
        alpha, beta1, beta2, eps, eta, weight_decay_rate: as in :class:`Adam`.
    """

    def __init__(self,
                 alpha=_default_hyperparam.alpha,
                 beta1=_default_hyperparam.beta1,
                 beta2=_default_hyperparam.beta2,
                 eps=_default_hyperparam.eps,
                 eta=_default_hyperparam.eta,
                 weight_decay_rate=_default_hyperparam.weight_decay_rate):
        super().__init__(alpha=alpha, beta1=beta1, beta2=beta2, eps=eps,
                         eta=eta, weight_decay_rate=weight_decay_rate)


class AMSGrad(Adam):
    """AMSGrad: :class:`Adam` with ``amsgrad=True``.

    Args:
        alpha, beta1, beta2, eps, eta: as in :class:`Adam`.
    """

    def __init__(self,
                 alpha=_default_hyperparam.alpha,
                 beta1=_default_hyperparam.beta1,
                 beta2=_default_hyperparam.beta2,
                 eps=_default_hyperparam.eps,
                 eta=_default_hyperparam.eta):
        super().__init__(alpha=alpha, beta1=beta1, beta2=beta2, eps=eps,
                         eta=eta, amsgrad=True)


class AdaBound(Adam):
    """AdaBound: :class:`Adam` with ``adabound=True``.

    Args:
        alpha, beta1, beta2, final_lr, gamma, eps, eta: as in :class:`Adam`.
    """

    def __init__(self,
                 alpha=_default_hyperparam.alpha,
                 beta1=_default_hyperparam.beta1,
                 beta2=_default_hyperparam.beta2,
                 final_lr=_default_hyperparam.final_lr,
                 gamma=_default_hyperparam.gamma,
                 eps=_default_hyperparam.eps,
                 eta=_default_hyperparam.eta):
        super().__init__(alpha=alpha, beta1=beta1, beta2=beta2, eps=eps,
                         eta=eta, amsgrad=False, adabound=True,
                         final_lr=final_lr, gamma=gamma)


class AMSBound(Adam):
    """AMSBound: :class:`Adam` with ``amsgrad=True`` and ``adabound=True``.

    Args:
        alpha, beta1, beta2, final_lr, gamma, eps, eta: as in :class:`Adam`.
    """

    def __init__(self,
                 alpha=_default_hyperparam.alpha,
                 beta1=_default_hyperparam.beta1,
                 beta2=_default_hyperparam.beta2,
                 final_lr=_default_hyperparam.final_lr,
                 gamma=_default_hyperparam.gamma,
                 eps=_default_hyperparam.eps,
                 eta=_default_hyperparam.eta):
        super().__init__(alpha=alpha, beta1=beta1, beta2=beta2, eps=eps,
                         eta=eta, amsgrad=True, adabound=True,
                         final_lr=final_lr, gamma=gamma)
