"""Optimizers: the base classes behind ``cpuframe.optimizers``.

An :class:`Optimizer` owns a target link.  A :class:`GradientMethod` gives
every parameter of the link an :class:`UpdateRule` at ``setup``; the rule
holds the per-parameter state (moments, velocities) and a
:class:`Hyperparameter` whose parent is the optimizer's, so
``optimizer.lr = 0.1`` reaches every rule while
``param.update_rule.hyperparam.lr = 0.5`` overrides one parameter.

Every update writes into ``param.array`` in place: a parameter's array is
never replaced by a new one, so arrays that other objects hold (a device's
native tensor, a view handed to a user) see the new values.
"""
import collections
import copy
import math
import warnings

import numpy

from cpuframe import backend, variable
from cpuframe import link as link_module
from cpuframe import serializer as serializer_module


class Hyperparameter:
    """A set of hyperparameter entries, falling back to a parent's.

    Entries are plain attributes.  Reading an entry this object does not
    hold reads the parent's, so an update rule's hyperparameter (whose
    parent is the optimizer's) follows changes made on the optimizer until
    the rule sets its own value.

    Args:
        parent (Hyperparameter): where missing entries are looked up.
    """

    def __init__(self, parent=None):
        self._parent = parent

    def __getattr__(self, name):
        # Only called for names missing from __dict__; reading __dict__
        # directly keeps copy/pickle (which probe before __init__) safe.
        parent = self.__dict__.get('_parent')
        if parent is None:
            raise AttributeError(
                'Hyperparameter: no entry {!r}'.format(name))
        return getattr(parent, name)

    def __repr__(self):
        d = self.get_dict()
        return 'Hyperparameter({})'.format(
            ', '.join('{}={}'.format(k, d[k]) for k in sorted(d)))

    @property
    def parent(self):
        """The parent hyperparameter (or ``None``)."""
        return self._parent

    def get_dict(self):
        """Every entry reachable from here (own entries win) as a dict."""
        d = {} if self._parent is None else self._parent.get_dict()
        for k, v in self.__dict__.items():
            if k != '_parent':
                d[k] = v
        return d


class HyperparameterProxy:
    """A property of an optimizer aliasing ``optimizer.hyperparam.<name>``."""

    def __init__(self, attr_name):
        self._attr_name = attr_name
        self.__doc__ = 'Alias to ``self.hyperparam.{}``'.format(attr_name)

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return getattr(obj.hyperparam, self._attr_name)

    def __set__(self, obj, value):
        setattr(obj.hyperparam, self._attr_name, value)


def _check_hook_args(where, hook, name, timing, not_callable):
    # Messages start with Chainer 7's text, which users match on.
    if not callable(hook):
        raise TypeError('{} ({}: got {})'.format(
            not_callable, where, type(hook).__name__))
    if timing not in ('pre', 'post', 'auto'):
        raise ValueError("timing must be one of ('pre', 'post', 'auto') "
                         "({}: got {!r})".format(where, timing))
    if name is None:
        name = getattr(hook, 'name', None) or getattr(hook, '__name__', None)
        if name is None:
            raise ValueError('{}: the hook has no name attribute; pass '
                             'name='.format(where))
    return name


def _unscale_grad(param):
    """Divide a gradient computed with ``backward(loss_scale=s)`` by ``s``.

    The gradient is replaced rather than divided in place (it may be a
    read-only broadcast) and the scale is cleared, so a second call, or an
    update without a new backward, does not divide again.
    """
    scale = getattr(param, '_loss_scale', None)
    if scale is None:
        return
    grad = param.grad
    if grad is not None:
        param.grad = grad / grad.dtype.type(scale)
    param._loss_scale = None


def _zero_grad(param):
    """Give ``param`` a zero gradient on its device (a cleared one refilled)."""
    device = param.device
    with backend.using_device(device):
        param.grad = device.xp.zeros_like(param.array)


def _is_writeable(array):
    flags = getattr(array, 'flags', None)
    return getattr(flags, 'writeable', True)


class UpdateRule:
    """How one parameter is updated from its gradient.

    Subclasses implement :meth:`update_core` (or :meth:`update_core_cpu`
    and :meth:`update_core_gpu`) and, when they keep state, :meth:`init_state`,
    which allocates the state arrays on the parameter's device at the first
    update.

    Args:
        parent_hyperparam (Hyperparameter): the defaults (usually the
            optimizer's hyperparameter).

    Attributes:
        enabled (bool): ``False`` makes :meth:`update` do nothing.
        hyperparam (Hyperparameter): this rule's hyperparameters.
        t (int): the number of updates this rule has made.
    """

    #: A class whose update can run as one step for all rules of the class
    #: in an optimizer (``GradientMethod._update_each``) names it here:
    #: ``read(hp)`` gives the step for rules reading the optimizer's
    #: values ``hp`` (or False where it does not apply), ``update(rule,
    #: state, data, grad)`` updates one parameter (True) or does nothing
    #: (False), and ``update_core_cpu`` and ``_direct_cpu`` are the
    #: methods it stands for (a subclass that replaces one, or
    #: ``_update_direct``, does not take the step).
    _shared_step = None

    def __init__(self, parent_hyperparam=None):
        self._pre_update_hooks = collections.OrderedDict()
        self._post_update_hooks = collections.OrderedDict()
        self._state = None
        self.enabled = True
        self.hyperparam = Hyperparameter(parent_hyperparam)
        self.t = 0
        self._use_fp32_update = False
        self._fp32_param = None

    @property
    def state(self):
        """The state dictionary (``None`` before the first update)."""
        return self._state

    def add_hook(self, hook, name=None, timing='auto'):
        """Add ``hook(rule, param)``, called before or after each update.

        Args:
            hook (callable): takes the update rule and the parameter.
            name (str): the registration name (``hook.name`` by default).
            timing (str): ``'pre'``, ``'post'`` or ``'auto'`` (the hook's
                ``timing`` attribute, else ``'pre'``).
        """
        name = _check_hook_args('UpdateRule.add_hook', hook, name, timing,
                                'hook function must be callable')
        if timing == 'auto':
            timing = getattr(hook, 'timing', 'pre')
        if name in self._pre_update_hooks or name in self._post_update_hooks:
            raise ValueError(
                'hook "{}" already exists (UpdateRule.add_hook)'.format(name))
        if timing == 'pre':
            self._pre_update_hooks[name] = hook
        else:
            self._post_update_hooks[name] = hook

    def remove_hook(self, name):
        """Remove the hook registered as ``name``."""
        if name in self._pre_update_hooks:
            del self._pre_update_hooks[name]
        elif name in self._post_update_hooks:
            del self._post_update_hooks[name]
        else:
            raise KeyError(
                'UpdateRule.remove_hook: no hook named {!r}'.format(name))

    def update(self, param):
        """Run the hooks and update ``param`` (in place) from its gradient.

        Does nothing when the rule is disabled.  A gradient computed with a
        loss scale is divided by it first; a parameter without a gradient
        (or without data) counts the step (``t``) but is left unchanged.
        """
        if not self.enabled:
            return
        self.t += 1
        _unscale_grad(param)
        grad = param.grad
        if grad is not None and not _is_writeable(grad):
            # Hooks modify the gradient in place.
            param.grad = grad.copy()
        if param.array is None:
            return  # not initialized yet: nothing to update
        if self._use_fp32_update and param.dtype == numpy.float16:
            self._update_in_fp32(param)
            return
        self._prepare(param)
        self._run(param)

    def _update_direct(self, param):
        """``update(param)`` for the common case, without its general
        steps; False (nothing done) where one of them would do something.

        The case: an enabled rule without hooks whose state exists, a NumPy
        parameter (the CPU device: no device step) with a writeable NumPy
        gradient or none, no loss scale left, no float16 master copy, and
        the rule's ``update_core`` not replaced. Then ``update`` amounts to
        ``t += 1`` and ``update_core_cpu``: what this runs. The optimizer
        asks it per parameter (``GradientMethod.update``); a small model's
        step spent more in those steps than in its arithmetic.
        """
        if not self.enabled or self._pre_update_hooks or \
                self._post_update_hooks or self._state is None:
            return False
        data = param._data[0]
        if type(data) is not numpy.ndarray:
            return self._update_direct_on_device(param, data)
        g = param._grad_var
        if g is not None:
            grad = g._array
            if type(grad) is not numpy.ndarray or not grad.flags.writeable:
                return False
        else:
            grad = None
        if not self._direct_applies(param, data):
            return False
        for value in self._state.values():
            if type(value) is not numpy.ndarray and backend.is_array(value):
                return False
        self.t += 1
        self._direct_cpu(param, data, grad)
        return True

    def _direct_cpu(self, param, data, grad):
        """``update_core_cpu(param)`` for ``_update_direct``, which has read
        the parameter's NumPy array ``data`` and its gradient ``grad`` (a
        NumPy array or None) already; a rule may take them from here."""
        self.update_core_cpu(param)

    def _direct_applies(self, param, data):
        # (the rest of ``_update_direct``'s case: no loss scale, no float16
        # master copy, the general steps and update_core not replaced)
        if param._loss_scale is not None or (
                self._use_fp32_update and data.dtype == numpy.float16):
            return False
        cls = type(self)
        return cls.update is UpdateRule.update and \
            cls._prepare is UpdateRule._prepare and \
            cls._run is UpdateRule._run and \
            cls.update_core is UpdateRule.update_core and \
            'update_core' not in self.__dict__ and \
            'update_core_cpu' not in self.__dict__

    def _update_direct_on_device(self, param, data):
        """``_update_direct`` for a parameter on the Intel64 device: an
        element-wise rule whose views of the parameter's and the state's
        buffers (``Intel64Device.elementwise_update``'s plan, made by an
        earlier update) still hold. Then ``_prepare`` has nothing to move
        and ``update`` amounts to ``t += 1`` and ``update_core``'s
        element-wise update."""
        plan = self.__dict__.get('_intel64_plan')
        if plan is None or not self.is_elementwise:
            return False
        g = param._grad_var
        if g is None:
            grad = None
        else:
            grad = g._array
            if type(grad) is numpy.ndarray and not grad.flags.writeable:
                return False
        if not self._direct_applies(param, data):
            return False
        return plan.update_direct(self, data, grad)

    def _run(self, param):
        for hook in tuple(self._pre_update_hooks.values()):
            hook(self, param)
        self.update_core(param)
        for hook in tuple(self._post_update_hooks.values()):
            hook(self, param)

    def _update_in_fp32(self, param):
        data = param.array
        fp32 = self._fp32_param
        if fp32 is None or fp32.shape != data.shape or not \
                (fp32.array.astype(data.dtype) == data).all():
            # First update, or the parameter was changed from outside
            # (loaded, copied): restart the master copy from its values.
            fp32 = self._fp32_param = variable.Variable(
                data.astype(numpy.float32), name=param.name)
        grad = param.grad
        fp32.grad = None if grad is None else grad.astype(numpy.float32)
        self._prepare(fp32)
        self._run(fp32)
        # Write back into the same array: the parameter keeps its identity.
        data[...] = fp32.array.astype(data.dtype)
        fp32.grad = None

    #: True (Chainer's flag) for rules whose update is element-wise in the
    #: parameter, its gradient and its state, as every rule of
    #: cpuframe.optimizers: a device may then run them its own way
    #: (``Device.elementwise_update``: the Intel64 device runs them on flat
    #: NumPy views of the buffers).
    is_elementwise = False

    def update_core(self, param):
        """Update ``param``; dispatches to the CPU or GPU variant."""
        device = param.device
        if device.xp is numpy:
            # (the CPU devices have no context to enter)
            if not (self.is_elementwise and
                    device.elementwise_update(self, param)):
                self.update_core_cpu(param)
            return
        with backend.using_device(device):
            self.update_core_gpu(param)

    def update_core_cpu(self, param):
        """Update a parameter held by NumPy (or the Intel64 device)."""
        raise NotImplementedError(
            '{}: implement update_core or update_core_cpu'.format(
                type(self).__name__))

    def update_core_gpu(self, param):
        """Update a parameter held by CuPy."""
        raise NotImplementedError(
            '{}: implement update_core or update_core_gpu'.format(
                type(self).__name__))

    def update_core_chainerx(self, param):
        """Update a parameter held by ChainerX (Chainer 7's hook).

        cpuframe has no ChainerX, so ``update_core`` never calls it; a rule
        that calls it itself gets Chainer's fallback: the update of the
        device the parameter is on.
        """
        if param.device.xp is numpy:
            self.update_core_cpu(param)
        else:
            self.update_core_gpu(param)

    def init_state(self, param):
        """Fill ``self.state`` for ``param`` (called at the first update)."""

    def _prepare(self, param):
        device = param.device
        if device.xp is numpy:
            # (the CPU devices have no context to enter)
            self._prepare_on(device, param)
            return
        with backend.using_device(device):
            self._prepare_on(device, param)

    def _prepare_on(self, device, param):
        if self._state is None:
            self._state = {}
            self.init_state(param)
        on_cpu = device is backend.cpu_device
        for name, value in self._state.items():
            if on_cpu and type(value) is numpy.ndarray:
                continue  # where it belongs (the common case)
            if backend.is_array(value) and \
                    backend.get_device_from_array(value) != device:
                self._state[name] = device.send(value)

    def serialize(self, serializer):
        """Save or load ``t`` and the state (not the parameter itself).

        Loading into a rule that has not updated yet creates its state from
        the file; when the file has no state for it the state stays unset
        and is initialized at the next update.
        """
        self.t = serializer('t', self.t)
        if self._state is None:
            if not isinstance(serializer, serializer_module.Deserializer):
                return
            keys = self._state_keys()
            loaded = {}
            for key in keys:
                try:
                    value = serializer(key, None)
                except KeyError:
                    if self.enabled:
                        raise
                    value = None
                if value is None:
                    return
                loaded[key] = value
            if keys:
                self._state = loaded
        else:
            for key in list(self._state):
                self._state[key] = serializer(key, self._state[key])

    def _state_keys(self):
        # Ask init_state which entries it creates, on a throwaway copy.
        probe = copy.copy(self)
        probe._state = {}
        arr = numpy.zeros(1, dtype=numpy.float32)
        probe.init_state(variable.Variable(arr, grad=arr.copy()))
        return list(probe._state)

    def use_fp32_update(self, flag=True):
        """Update float16 parameters through a float32 master copy."""
        self._use_fp32_update = flag


class Optimizer:
    """Base class of all optimizers.

    ``setup(link)`` sets the target; ``update()`` updates its parameters.
    Hooks added with :meth:`add_hook` run before (``'pre'``) or after
    (``'post'``) the update; a hook whose ``call_for_each_param`` is true is
    called as ``hook(update_rule, param)`` for every parameter, others as
    ``hook(optimizer)``.

    Attributes:
        target: the link being optimized.
        t (int): the number of update steps.
        epoch (int): the epoch count (see :meth:`new_epoch`).
        use_auto_new_epoch (bool): set by an updater that calls
            ``new_epoch(auto=True)`` itself.
    """

    target = None
    t = 0
    epoch = 0
    _pre_update_hooks = None
    _post_update_hooks = None
    _loss_scale = None
    _loss_scale_max = 65504  # the largest float16
    _loss_scaling_is_dynamic = False
    _loss_scaling_isnan = False
    use_auto_new_epoch = False

    def setup(self, link):
        """Set the target link, reset ``t``, ``epoch`` and hooks; return self."""
        if not isinstance(link, link_module.Link):
            raise TypeError(
                'optimization target must be a link ({}.setup: got {})'
                .format(type(self).__name__, type(link).__name__))
        self.target = link
        self.t = 0
        self.epoch = 0
        self._pre_update_hooks = collections.OrderedDict()
        self._post_update_hooks = collections.OrderedDict()
        return self

    def update(self, lossfun=None, *args, **kwds):
        """Update the target's parameters (see :meth:`GradientMethod.update`)."""
        raise NotImplementedError

    def new_epoch(self, auto=False):
        """Count a new epoch.

        ``auto=True`` is for updaters, which must also set
        ``use_auto_new_epoch``; mixing both ways raises ``RuntimeError``.
        """
        if auto and not self.use_auto_new_epoch:
            raise RuntimeError(
                'invalid new_epoch call with auto=True.\n'
                'Fix the updater to set '
                'optimizer.use_auto_new_epoch = True.')
        if not auto and self.use_auto_new_epoch:
            raise RuntimeError(
                'duplicated new_epoch with the updater.\n'
                'Pass auto_new_epoch=False to the updater or stop calling '
                'new_epoch outside the updater.')
        self.epoch += 1

    def _check_setup(self, where):
        if self._pre_update_hooks is None:
            raise RuntimeError(
                'call `setup` method before `{}` method ({})'.format(
                    where, type(self).__name__))

    def add_hook(self, hook, name=None, timing='auto'):
        """Register a hook.

        Args:
            hook (callable): ``hook(optimizer)``, or ``hook(rule, param)``
                when ``hook.call_for_each_param`` is true.
            name (str): the registration name (``hook.name`` by default).
            timing (str): ``'pre'``, ``'post'`` or ``'auto'`` (the hook's
                ``timing`` attribute; ``'pre'`` with a warning if missing).
        """
        self._check_setup('add_hook')
        name = _check_hook_args('Optimizer.add_hook', hook, name, timing,
                                'hook function is not callable')
        if timing == 'auto':
            timing = getattr(hook, 'timing', None)
            if timing not in ('pre', 'post'):
                warnings.warn(
                    "Hook timing attribute not in ('pre', 'post'), "
                    "defaulting timing to 'pre'.", stacklevel=2)
                timing = 'pre'
        if name in self._pre_update_hooks or name in self._post_update_hooks:
            raise KeyError(
                'hook "{}" already exists (Optimizer.add_hook)'.format(name))
        if timing == 'pre':
            self._pre_update_hooks[name] = hook
        else:
            self._post_update_hooks[name] = hook

    def remove_hook(self, name):
        """Remove the hook registered as ``name``."""
        self._check_setup('remove_hook')
        if name in self._pre_update_hooks:
            del self._pre_update_hooks[name]
        elif name in self._post_update_hooks:
            del self._post_update_hooks[name]
        else:
            raise KeyError(
                'Optimizer.remove_hook: no hook named {!r}'.format(name))

    def call_hooks(self, timing='pre'):
        """Call the ``timing`` hooks in registration order."""
        for hook in self._hooks_at(timing):
            self._call_hook(hook)

    def _hooks_at(self, timing):
        if timing not in ('pre', 'post'):
            raise ValueError("timing must be either 'pre' or 'post' "
                             "(Optimizer.call_hooks: got {!r})".format(timing))
        self._check_setup('call_hooks')
        hooks = self._pre_update_hooks if timing == 'pre' else \
            self._post_update_hooks
        return tuple(hooks.values())

    def _call_hook(self, hook):
        if getattr(hook, 'call_for_each_param', False):
            for param in self.target.params():
                hook(param.update_rule, param)
        else:
            hook(self)

    def serialize(self, serializer):
        """Save or load ``t``, ``epoch``, each parameter's rule state and
        the state of hooks that define ``serialize``.

        Keys follow Chainer (``t``, ``epoch``, ``<param path>/<state>``);
        hook state goes under ``_hooks/<name>/``.  The parameters themselves
        are not included: serialize the link separately.
        """
        if self.target is None:
            raise RuntimeError(
                '{}.serialize: call setup(link) first'.format(
                    type(self).__name__))
        self.t = serializer('t', self.t)
        self.epoch = serializer('epoch', self.epoch)
        for name, param in self.target.namedparams():
            rule = getattr(param, 'update_rule', None)
            if rule is not None:
                rule.serialize(serializer[name])
        for hooks in (self._pre_update_hooks, self._post_update_hooks):
            for name, hook in (hooks or {}).items():
                if callable(getattr(hook, 'serialize', None)):
                    hook.serialize(serializer['_hooks'][name])

    # -- loss scaling -------------------------------------------------------
    def loss_scaling(self, interval=1000, scale=None):
        """Configure loss scaling.

        With ``scale`` the loss is multiplied by it before backward and the
        gradients divided by it before the update (static scaling).  With
        ``scale=None`` the scale adapts: it is halved (and the step skipped)
        whenever a gradient is not finite, and otherwise grows, doubling
        every ``interval`` steps once an overflow has been seen.
        """
        if scale is None:
            if interval < 1:
                raise ValueError(
                    'interval must be greater than or equal to 1. '
                    'Actual: {}'.format(interval))
            self._loss_scaling_is_dynamic = True
            self._loss_scale = 1.0
            self._loss_scaling_multiplier = math.pow(2.0, 1.0 / interval)
            self._loss_scaling_isnan_ever = False
        else:
            if not scale > 0:
                raise ValueError(
                    'loss_scale must be a positive number. '
                    'Actual: {}'.format(scale))
            self._loss_scaling_is_dynamic = False
            self._loss_scale = scale

    def set_loss_scale(self, loss_scale):
        """Use a static loss scale (``None``, as in Chainer, means dynamic)."""
        self.loss_scaling(scale=loss_scale)

    def check_nan_in_grads(self):
        """With dynamic loss scaling, note whether any gradient is not finite."""
        self._loss_scaling_isnan = False
        if not self._loss_scaling_is_dynamic:
            return
        for name, param in self.target.namedparams():
            grad = param.grad
            if grad is None:
                continue
            xp = backend.get_array_module(grad)
            if not bool(xp.all(xp.isfinite(grad))):
                self._loss_scaling_isnan = True
                self._loss_scaling_isnan_ever = True
                warnings.warn(
                    'Optimizer: non-finite gradient in {} (iteration {}, '
                    'loss scale {}); skipping this update'.format(
                        name, self.t, self._loss_scale), stacklevel=2)
                return

    def is_safe_to_update(self):
        """False when dynamic loss scaling found a non-finite gradient."""
        return not self._loss_scaling_isnan

    def update_loss_scale(self):
        """Adapt the dynamic loss scale after a step."""
        if not self._loss_scaling_is_dynamic:
            return
        if self._loss_scaling_isnan:
            multiplier = 0.5
        elif self._loss_scaling_isnan_ever:
            multiplier = self._loss_scaling_multiplier
        else:
            multiplier = 2.0
        self._loss_scale = max(1, min(self._loss_scale_max,
                                      self._loss_scale * multiplier))


_ndarray = numpy.ndarray


def _shared_class(cls, maker):
    # (a rule class whose update is its shared step's: the general steps,
    # the direct update's and the CPU update the step stands for are not
    # replaced)
    return cls.update_core_cpu is maker.update_core_cpu and \
        cls._direct_cpu is maker._direct_cpu and \
        cls._update_direct is UpdateRule._update_direct and \
        cls._direct_applies is UpdateRule._direct_applies and \
        cls.update is UpdateRule.update and \
        cls._prepare is UpdateRule._prepare and \
        cls._run is UpdateRule._run and \
        cls.update_core is UpdateRule.update_core


_OWN_WAY = object()


def _own_methods(rule):
    d = rule.__dict__
    return 'update_core' in d or 'update_core_cpu' in d


def _shared_update(step, rule, param, hp):
    """``rule._update_direct(param)`` by the shared ``step``, for a rule
    whose values are all ``hp``'s (the optimizer's) and a NumPy parameter
    with a writeable NumPy gradient: True when done; False, nothing done,
    otherwise (``_update_direct``'s other conditions as there)."""
    if not rule.enabled or rule._pre_update_hooks or \
            rule._post_update_hooks or rule._use_fp32_update:
        return False
    state = rule._state
    if state is None:
        return False
    h = rule.hyperparam
    if type(h) is not Hyperparameter:
        return False
    d = h.__dict__
    if len(d) != 1 or d.get('_parent') is not hp:
        return False      # (values of its own)
    d = rule.__dict__
    if 'update_core' in d or 'update_core_cpu' in d:
        return False      # (_own_methods)
    data = param._data[0]
    g = param._grad_var
    if g is None or param._loss_scale is not None:
        return False
    grad = g._array
    if type(data) is not _ndarray:
        # (an Intel64 parameter: the step on the flat views of the plan an
        # earlier update kept, where it still holds; ``_update_direct``'s
        # device case)
        plan = d.get('_intel64_plan')
        if plan is None or not rule.is_elementwise or (
                type(grad) is _ndarray and not grad.flags.writeable):
            return False
        return plan.update_shared(rule, step, data, grad)
    if type(grad) is not _ndarray or not grad.flags.writeable:
        return False
    return step.update(rule, state, data, grad)


class GradientMethod(Optimizer):
    """Base class of the first-order optimizers.

    ``setup`` gives each parameter the rule :meth:`create_update_rule`
    returns, its hyperparameter parented to :attr:`hyperparam`.  Subclasses
    expose the entries of :attr:`hyperparam` with
    :class:`HyperparameterProxy` (``optimizer.lr``).
    """

    def __init__(self):
        super().__init__()
        self.hyperparam = Hyperparameter()
        self._use_fp32_update = False

    def setup(self, link):
        super().setup(link)
        for param in link.params():
            rule = self.create_update_rule()
            if self._use_fp32_update:
                rule.use_fp32_update()
            if getattr(param, '_update_disabled', False):
                rule.enabled = False
            param.update_rule = rule
        return self

    def reallocate_cleared_grads(self):
        """Give every initialized parameter without a gradient a zero one."""
        for _, param in self.target.namedparams(include_uninit=False):
            if param.grad is None:
                _zero_grad(param)

    def _own_grads(self):
        # Backward may hand two parameters the same gradient array, or a
        # read-only broadcast; hooks and unscaling write gradients in place,
        # so each parameter gets its own writeable array first.
        seen = set()
        for param in self.target.params(include_uninit=False):
            grad = param.grad
            if grad is None:
                continue
            if id(grad) in seen or not _is_writeable(grad):
                param.grad = grad.copy()
            seen.add(id(param.grad))

    def call_hooks(self, timing='pre'):
        """Call the ``timing`` hooks; refill cleared gradients after each."""
        for hook in self._hooks_at(timing):
            self._call_hook(hook)
            self.reallocate_cleared_grads()

    def update(self, lossfun=None, *args, **kwds):
        """Update the parameters.

        With ``lossfun``, the gradients are cleared, ``lossfun(*args,
        **kwds)`` computes the loss and its backward (scaled by the loss
        scale, if set) the gradients.  Without it the gradients must be
        there already.  Then: 'pre' hooks, ``t += 1``, each parameter's
        rule, 'post' hooks.
        """
        if self.target is None:
            raise RuntimeError('{}.update: call setup(link) first'.format(
                type(self).__name__))
        if lossfun is not None:
            loss = lossfun(*args, **kwds)
            if not isinstance(loss, variable.Variable):
                raise TypeError(
                    '{}.update: lossfun must return a Variable, got '
                    '{}'.format(type(self).__name__, type(loss).__name__))
            if getattr(self, '_use_cleargrads', True):
                self.target.cleargrads()
            else:
                self.target._zerograds()
            loss.backward(loss_scale=self._loss_scale)
            del loss

        # reallocate_cleared_grads, _own_grads and the unscaling in one
        # walk over the parameters (each walk costs as much as a small
        # model's update); the update walks the same list unless a 'pre'
        # hook ran, which might change the link (Chainer walks again)
        every = list(self.target.params())
        params = []
        seen = set()
        parameter, plain_variable = variable.Parameter, variable.Variable
        for param in every:
            if type(param) is parameter:
                # (Parameter's array and grad read without their properties:
                # two Python calls each, per parameter and step)
                if param._data[0] is None:
                    continue    # (uninitialized: only the update sees it)
                params.append(param)
                gv = param._grad_var
                grad = None if gv is None else (
                    gv._array if type(gv) is plain_variable else gv.array)
            else:
                if param.array is None:
                    continue
                params.append(param)
                grad = param.grad
            if grad is None:
                _zero_grad(param)
                grad = param.grad
            elif id(grad) in seen or not (
                    grad.flags.writeable if type(grad) is numpy.ndarray
                    else _is_writeable(grad)):
                param.grad = grad = grad.copy()
            seen.add(id(grad))
            if getattr(param, '_loss_scale', None) is not None:
                _unscale_grad(param)
        seen = grad = None
        self.check_nan_in_grads()
        # call_hooks may be skipped only where no hook is registered, it is
        # GradientMethod's own (not a subclass's, not one set on the
        # instance) and setup ran (before it, call_hooks raises)
        may_skip_hooks = \
            type(self).call_hooks is GradientMethod.call_hooks and \
            'call_hooks' not in self.__dict__ and \
            self._pre_update_hooks is not None
        if self._pre_update_hooks or not may_skip_hooks:
            self.call_hooks('pre')
            every = self.target.params()

        self.t += 1
        if self.is_safe_to_update():
            self._update_each(every)
        every = None

        for param in params:
            if type(param) is parameter:
                gv = param._grad_var
                if (gv is None or (gv._array if type(gv) is plain_variable
                                   else gv.array) is None) and \
                        param._data[0] is not None:
                    _zero_grad(param)
            elif param.grad is None and param.array is not None:
                _zero_grad(param)
        if self._post_update_hooks or not may_skip_hooks:
            self.call_hooks('post')
        self.update_loss_scale()

    def _update_each(self, params):
        """Each parameter's update, in order: a step shared by the rules
        of one class (``UpdateRule._shared_step``) where its case holds
        (``_shared_update``), else the rule's direct update where that
        applies (``UpdateRule._update_direct``), else ``param.update()``.

        A shared step reads what every rule of its class reads from this
        optimizer (hyperparameters, NumPy's error state, a kernel) once per
        update instead of once per parameter; after a parameter whose
        update may run code of the user's (hooks, a rule class without a
        step, methods set on the rule or the parameter) it is read again:
        that code may change what it read."""
        parameter_update = variable.Parameter.update
        hp = self.hyperparam
        # rule class -> its shared step; False where the step declined
        # these values (AMSGrad, ...); _OWN_WAY for a class without one
        steps = {}
        for param in params:
            rule = param.update_rule
            if rule is None or type(param).update is not parameter_update:
                param.update()
                if type(param).update is not parameter_update:
                    steps.clear()
                continue
            cls = type(rule)
            step = steps.get(cls)
            if step is None:
                maker = cls._shared_step
                step = steps[cls] = maker.read(hp) if maker is not None and \
                    _shared_class(cls, maker) else _OWN_WAY
            if step is not False and step is not _OWN_WAY and \
                    _shared_update(step, rule, param, hp):
                continue
            if not rule._update_direct(param):
                param.update()
            # (a rule of a class with a step, without hooks or methods of
            # its own, ran cpuframe's code only: nothing it read changed)
            if step is _OWN_WAY or rule._pre_update_hooks or \
                    rule._post_update_hooks or _own_methods(rule):
                steps.clear()

    def use_cleargrads(self, use=True):
        """Deprecated: choose ``cleargrads`` (default) or ``zerograds``."""
        warnings.warn('GradientMethod.use_cleargrads is deprecated',
                      DeprecationWarning, stacklevel=2)
        self._use_cleargrads = use

    def create_update_rule(self):
        """Return a new :class:`UpdateRule` for one parameter."""
        raise NotImplementedError(
            '{}: implement create_update_rule'.format(type(self).__name__))

    def use_fp32_update(self, flag=True):
        """Update float16 parameters through float32 master copies."""
        self._use_fp32_update = flag
        if self.target is not None:
            for param in self.target.params():
                if param.update_rule is not None:
                    param.update_rule.use_fp32_update(flag)


_DEPRECATED_HOOKS = ('WeightDecay', 'Lasso', 'GradientClipping',
                     'GradientNoise', 'GradientHardClipping')


def __getattr__(name):
    # chainer.optimizer.WeightDecay & co. moved to optimizer_hooks in v4.
    if name in _DEPRECATED_HOOKS:
        from cpuframe import optimizer_hooks
        warnings.warn('cpuframe.optimizer.{0} is deprecated; use '
                      'cpuframe.optimizer_hooks.{0}'.format(name),
                      DeprecationWarning, stacklevel=2)
        return getattr(optimizer_hooks, name)
    raise AttributeError(
        "module 'cpuframe.optimizer' has no attribute {!r}".format(name))
