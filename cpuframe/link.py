"""Link, Chain and ChainList: the building blocks of models.

A Link owns Parameters (registered inside ``init_scope``) and persistent
values (``add_persistent``); a Chain owns child links by name, a ChainList
by position.  Parameters are named by their path (``/conv1/W``), the keys
the serializers and optimizers use.
"""
import collections
import contextlib
import copy as copy_module
import warnings

import numpy

from cpuframe import _hook_registry, backend, initializers, link_hook
from cpuframe.variable import Parameter


class _NameSet(set):
    """The names in ``Link._params``, ``Link._persistent`` and
    ``Chain._children``: a set, as in Chainer 7 (``link._params == {'W',
    'b'}``), iterated in sorted order, as Chainer visits them
    (``params()``, ``namedlinks()``, serializers). The order is kept
    between changes (every optimizer step walks the parameters twice)."""

    __slots__ = ('_order',)

    def __init__(self, *args):
        super().__init__(*args)
        self._order = None

    def append(self, name):  # (older cpuframe code called these lists)
        self.add(name)

    def copy(self):
        return _NameSet(self)

    def __iter__(self):
        order = self._order
        if order is None:
            order = self._order = tuple(sorted(set.__iter__(self)))
        return iter(order)

    def __reduce__(self):
        # (the names alone: the kept order is rebuilt on first use)
        return type(self), (list(set.__iter__(self)),)


def _changes(name):
    method = getattr(set, name)

    def change(self, *args):
        # (cleared after the change as well: an argument that iterates
        # this very set inside the change would keep the old order)
        self._order = None
        try:
            return method(self, *args)
        finally:
            self._order = None
    change.__name__ = name
    change.__doc__ = method.__doc__
    return change


for _name in ('add', 'discard', 'remove', 'pop', 'clear', 'update',
              'difference_update', 'intersection_update',
              'symmetric_difference_update', '__ior__', '__iand__',
              '__isub__', '__ixor__'):
    setattr(_NameSet, _name, _changes(_name))
del _name


class Link(backend.DeviceResident):
    """A model component holding parameters and persistent values.

    Subclasses register Parameters inside ``with self.init_scope():`` and
    implement ``forward``; calling the link calls ``forward``.
    """

    def __init__(self, **params):
        super().__init__()
        self._params = _NameSet()
        self._persistent = _NameSet()
        self._within_init_scope = False
        self.name = None
        # Chainer's old constructor: ``Link(W=(3, 2), b=((2,), 'd'))``
        # registers parameters of these shapes (and dtypes, float32 by
        # default), NaN-filled; a shape of None leaves one uninitialized.
        for name, value in params.items():
            shape, dtype = _shape_and_dtype(value)
            self.add_param(name, shape, dtype=dtype)

    # -- registration -----------------------------------------------------
    @property
    def within_init_scope(self):
        """True inside ``init_scope``: assigned Parameters get registered."""
        return getattr(self, '_within_init_scope', False)

    @contextlib.contextmanager
    def init_scope(self):
        """Register Parameters (and, in a Chain, Links) assigned inside."""
        if '_params' not in self.__dict__:
            raise RuntimeError('Link.__init__() has not been called.')
        old = self._within_init_scope
        self._within_init_scope = True
        try:
            yield
        finally:
            self._within_init_scope = old

    @property
    def _device_id(self):
        """The GPU id of ``device``, None off GPUs (deprecated, as in
        Chainer 7: use ``device``)."""
        warnings.warn(
            'Link._device_id is left only for backward compatibility and '
            'likely to be removed. Use Link.device instead.',
            DeprecationWarning, stacklevel=2)
        device = self._device
        if isinstance(device, backend.GpuDevice):
            return device.device.id
        return None

    def __setattr__(self, name, value):
        if self.within_init_scope and isinstance(value, Parameter):
            value.name = name
            if name not in self._params:
                self._params.append(name)
            if self._device != backend.cpu_device:
                value.to_device(self._device)
        super().__setattr__(name, value)

    def __delattr__(self, name):
        if name in self._params:
            self._params.remove(name)
        elif name in self._persistent:
            self._persistent.remove(name)
        super().__delattr__(name)

    def add_param(self, name, shape=None, dtype=numpy.float32,
                  initializer=None):
        """Register a new Parameter ``name`` (uninitialized if shape is None)."""
        if name in self.__dict__:
            raise AttributeError(
                'add_param: cannot register a parameter {!r}: the attribute '
                'already exists'.format(name))
        if initializer is None:
            initializer = initializers.NaN(dtype)
        param = Parameter(initializer, shape)
        with self.init_scope():
            setattr(self, name, param)

    def add_persistent(self, name, value):
        """Register ``value`` (an array or scalar) as persistent state.

        Persistents are saved by serializers and moved by ``to_device`` but
        get no gradient (e.g. BatchNormalization's running statistics).
        """
        if name in self.__dict__:
            raise AttributeError(
                'add_persistent: cannot register a persistent value {!r}: '
                'the attribute already exists'.format(name))
        self._persistent.append(name)
        if backend.is_array(value):
            value = self._device.send(value)
        object.__setattr__(self, name, value)

    def register_persistent(self, name):
        """Mark an existing attribute as persistent."""
        if not hasattr(self, name):
            raise AttributeError(
                'register_persistent: no attribute {!r}'.format(name))
        if name not in self._persistent:
            self._persistent.append(name)

    # -- traversal ----------------------------------------------------------
    def params(self, include_uninit=True):
        """Iterate over every Parameter of this link and its descendants
        (in ``namedparams``'s order, without building the paths)."""
        d = self.__dict__
        for name in self._params:
            param = d[name]
            if include_uninit or param._data[0] is not None:
                yield param

    def namedparams(self, include_uninit=True):
        """Iterate over ``(path, Parameter)`` pairs, e.g. ``('/l1/W', W)``."""
        for name in self._params:
            param = self.__dict__[name]
            if include_uninit or param.array is not None:
                yield '/' + name, param

    def links(self, skipself=False):
        """Iterate over this link (unless skipped) and all descendants."""
        for _, link in self.namedlinks(skipself):
            yield link

    def namedlinks(self, skipself=False):
        """Iterate over ``(path, link)`` pairs; this link's path is ``'/'``."""
        if not skipself:
            yield '/', self

    def children(self):
        """Iterate over the direct child links."""
        return iter(())

    def count_params(self):
        """The number of scalars in all initialized parameters; each
        uninitialized one is left out with a warning (as in Chainer)."""
        size = 0
        for path, param in self.namedparams():
            if param.array is None:
                warnings.warn(
                    'Parameter \'{}\' has not been initialized, so the '
                    'resulting count will not include the number of '
                    'parameters in it.'.format(path), stacklevel=2)
                continue
            size += param.size
        return size

    # -- gradients and copies -----------------------------------------------
    def cleargrads(self):
        """Set every parameter's gradient to None."""
        for param in self.params():
            param.cleargrad()

    def zerograds(self):
        """Set every parameter's gradient to zeros (deprecated in Chainer
        since v1.15: use ``cleargrads``)."""
        warnings.warn(
            'Link.zerograds is deprecated. Use Link.cleargrads instead.',
            DeprecationWarning, stacklevel=2)
        self._zerograds()

    def _zerograds(self):
        # zerograds without the warning (the optimizer's use_cleargrads
        # (False), which warned when it was chosen)
        for param in self.params():
            param._zerograd()

    def addgrads(self, link):
        """Add the gradients of ``link`` (same structure) to this link's."""
        src = dict(link.namedparams())
        for name, dst in self.namedparams():
            dst.addgrad(src[name])

    def copyparams(self, link, copy_persistent=True):
        """Copy parameter (and persistent) values from a same-shaped link."""
        src = dict(link.namedparams())
        for name, dst in self.namedparams():
            dst.copydata(src[name])
        if copy_persistent:
            src_links = dict(link.namedlinks())
            for path, dst_link in self.namedlinks():
                other = src_links[path]
                for name in dst_link._persistent:
                    value = getattr(other, name)
                    current = getattr(dst_link, name)
                    if backend.is_array(current) and backend.is_array(value):
                        backend.copyto(current, value)
                    else:
                        object.__setattr__(dst_link, name,
                                           copy_module.deepcopy(value))

    def copy(self, mode='share'):
        """A copy of the link hierarchy rooted here (its ``name`` reset).

        ``'share'`` (default) copies the links shallowly: each parameter
        is a new Parameter on the same array slot as the original's (an
        array assigned to, or lazily initialized in, one is seen by the
        other), without a gradient, and persistent values are the same
        objects.  ``'copy'`` copies the parameters' arrays and gradients
        and the persistent values, ``'init'`` also re-initializes the
        initialized parameters with their initializers.
        """
        if mode not in ('share', 'copy', 'init'):
            raise ValueError(
                "The 'mode' argument should be either 'init','copy', or "
                "'share'. But {} was given.".format(mode))
        ret = copy_module.copy(self)
        ret.name = None
        ret._params = _NameSet(self._params)
        ret._persistent = _NameSet(self._persistent)
        for name in ret._params:
            object.__setattr__(ret, name,
                               _copy_param(self.__dict__[name], mode))
        if mode != 'share':
            for name in ret._persistent:
                object.__setattr__(ret, name,
                                   copy_module.deepcopy(getattr(self, name)))
        ret._copy_children(self, mode)
        return ret

    def _copy_children(self, src, mode):
        pass

    def repeat(self, n_repeat, mode='init'):
        """A Sequential of ``n_repeat`` copies of this link (``copy(mode)``)."""
        from cpuframe.sequential import Sequential
        if n_repeat <= 0:
            return Sequential()
        return Sequential(*[self.copy(mode) for _ in range(n_repeat)])

    # -- update control -------------------------------------------------------
    def enable_update(self):
        """Let optimizers update every parameter of this link."""
        for param in self.params():
            rule = param.update_rule
            if rule is not None:
                rule.enabled = True
            param._update_disabled = False

    def disable_update(self):
        """Keep optimizers from updating the parameters of this link."""
        for param in self.params():
            rule = param.update_rule
            if rule is not None:
                rule.enabled = False
            param._update_disabled = True

    @property
    def update_enabled(self):
        """True when some parameter of this link may be updated."""
        for param in self.params():
            if not getattr(param, '_update_disabled', False):
                return True
        return False

    # -- devices and serialization ----------------------------------------------
    def device_resident_accept(self, visitor):
        super().device_resident_accept(visitor)
        for name in self._params:
            visitor.visit_variable(self.__dict__[name])
        for name in self._persistent:
            # getattr: a persistent may still be the class's default (e.g.
            # a lazily initialized BatchNormalization's avg_mean = None).
            value = getattr(self, name)
            if backend.is_array(value):
                object.__setattr__(self, name, visitor.visit_array(value))

    def serialize(self, serializer):
        """Save or load parameters and persistents through ``serializer``."""
        for name in self._params:
            param = self.__dict__[name]
            data = serializer(name, param.array)
            if param.array is None and data is not None:
                param.initialize(data.shape)
                backend.copyto(param.array, data)
        for name in self._persistent:
            value = serializer(name, getattr(self, name))
            object.__setattr__(self, name, value)

    # -- calling ----------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        forward = getattr(self, 'forward', None)
        if forward is None:
            raise TypeError('{}: the link defines no forward()'.format(
                type(self).__name__))
        hooks = link_hook.hooks_of(self)
        if not hooks:
            return forward(*args, **kwargs)
        pre = link_hook._ForwardPreprocessCallbackArgs(
            self, 'forward', args, kwargs)
        for hook in hooks:
            hook.forward_preprocess(pre)
        out = forward(*args, **kwargs)
        post = link_hook._ForwardPostprocessCallbackArgs(
            self, 'forward', args, kwargs, out)
        for hook in hooks:
            hook.forward_postprocess(post)
        return out

    # -- hooks ------------------------------------------------------------------
    _local_link_hooks = None

    @property
    def local_link_hooks(self):
        """The ordered dict ``{name: hook}`` of hooks added to this link."""
        if self._local_link_hooks is None:
            object.__setattr__(self, '_local_link_hooks',
                               collections.OrderedDict())
        return self._local_link_hooks

    def add_hook(self, hook, name=None):
        """Register ``hook`` (a LinkHook) for this link only; returns self.

        ``name`` defaults to ``hook.name``; a name already in use here is a
        ``KeyError``.  Local hooks run after the global ones.
        """
        if not isinstance(hook, link_hook.LinkHook):
            raise TypeError(
                'Hook must be of type LinkHook ({}.add_hook: got {})'.format(
                    type(self).__name__, type(hook).__name__))
        _hook_registry.add_local(self.local_link_hooks, hook, name, self,
                                 type(self).__name__)
        return self

    def delete_hook(self, name):
        """Unregister the hook added to this link under ``name``."""
        _hook_registry.delete_local(self.local_link_hooks, name, self,
                                    type(self).__name__)

    def printable_specs(self):
        """``(name, value)`` pairs shown in ``repr`` (override in links)."""
        return ()

    def __repr__(self):
        specs = self.printable_specs
        if callable(specs):
            specs = specs()
        # (Chainer links define printable_specs as a property yielding the
        # pairs; cpuframe's as a method returning them: both work.)
        specs = ', '.join('{}={}'.format(k, v) for k, v in specs)
        return '{}({})'.format(type(self).__name__, specs)


class Chain(Link):
    """A link whose children are links assigned inside ``init_scope``."""

    def __init__(self, **links):
        super().__init__()
        self._children = _NameSet()
        for name, link in links.items():
            self.add_link(name, link)

    def __setattr__(self, name, value):
        if self.within_init_scope and isinstance(value, Link):
            if hasattr(self, name) and name not in self._children:
                raise AttributeError(
                    'Chain: cannot register a link {!r}: the attribute already '
                    'exists'.format(name))
            value.name = name
            if name not in self._children:
                self._children.append(name)
            if self._device != backend.cpu_device:
                value.to_device(self._device)
        super().__setattr__(name, value)

    def __delattr__(self, name):
        if name in self._children:
            self._children.remove(name)
        super().__delattr__(name)

    def __getitem__(self, name):
        return getattr(self, name)

    def add_link(self, name, link):
        """Register ``link`` as a child named ``name``."""
        if not isinstance(link, Link):
            raise TypeError('add_link: expected a Link, got {}'.format(
                type(link).__name__))
        with self.init_scope():
            setattr(self, name, link)

    def children(self):
        for name in self._children:
            yield self.__dict__[name]

    def params(self, include_uninit=True):
        yield from super().params(include_uninit)
        d = self.__dict__
        for name in self._children:
            yield from d[name].params(include_uninit)

    def namedparams(self, include_uninit=True):
        yield from super().namedparams(include_uninit)
        for name in self._children:
            prefix = '/' + name
            for path, param in self.__dict__[name].namedparams(include_uninit):
                yield prefix + path, param

    def namedlinks(self, skipself=False):
        if not skipself:
            yield '/', self
        for name in self._children:
            child = self.__dict__[name]
            prefix = '/' + name
            yield prefix, child
            for path, link in child.namedlinks(skipself=True):
                yield prefix + path, link

    def _copy_children(self, src, mode):
        self._children = _NameSet(src._children)
        for name in self._children:
            child = src.__dict__[name].copy(mode)
            child.name = name
            object.__setattr__(self, name, child)

    def device_resident_accept(self, visitor):
        super().device_resident_accept(visitor)
        for child in self.children():
            child.device_resident_accept(visitor)

    def serialize(self, serializer):
        super().serialize(serializer)
        for name in self._children:
            self.__dict__[name].serialize(serializer[name])

    def __repr__(self):
        lines = ['{}('.format(type(self).__name__)]
        for name in self._children:
            child = repr(self.__dict__[name]).replace('\n', '\n  ')
            lines.append('  ({}): {},'.format(name, child))
        lines.append(')')
        return '\n'.join(lines) if self._children else \
            '{}()'.format(type(self).__name__)


class ChainList(Link):
    """A link whose children are an ordered list of links."""

    def __init__(self, *links):
        super().__init__()
        self._children = []
        for link in links:
            self.add_link(link)

    def __setattr__(self, name, value):
        if self.within_init_scope and isinstance(value, Link):
            raise TypeError(
                'ChainList: cannot register a link by attribute ({!r}); use '
                'append() or add_link()'.format(name))
        super().__setattr__(name, value)

    def __getitem__(self, index):
        return self._children[index]

    def __setitem__(self, index, value):
        """Replace the child at ``index`` (an int, or a slice given an
        iterable of links); children are renamed by position."""
        if isinstance(index, slice):
            links = list(value)
            for link in links:
                self._check_link(link)
            self._children[index] = links
            for link in links:
                self._send(link)
            self._rename_children()
        elif isinstance(index, (int, numpy.integer)) and \
                not isinstance(index, bool):
            self._check_link(value)
            self._children[index] = value
            self._send(value)
            self._rename_children()
        else:
            raise TypeError(
                'ChainList indices must be integers or slices, not {}'.format(
                    type(index).__name__))

    def __delitem__(self, index):
        del self._children[index]
        self._rename_children()

    def insert(self, index, link):
        """Insert ``link`` before position ``index``."""
        self._check_link(link)
        self._send(link)
        self._children.insert(index, link)
        self._rename_children()

    @staticmethod
    def _check_link(link):
        if not isinstance(link, Link):
            raise TypeError('ChainList: expected a Link, got {}'.format(
                type(link).__name__))

    def _send(self, link):
        if self._device != backend.cpu_device:
            link.to_device(self._device)

    def __iter__(self):
        return iter(self._children)

    def __len__(self):
        return len(self._children)

    def add_link(self, link):
        """Append ``link`` as the next child."""
        if not isinstance(link, Link):
            raise TypeError('add_link: expected a Link, got {}'.format(
                type(link).__name__))
        link.name = str(len(self._children))
        if self._device != backend.cpu_device:
            link.to_device(self._device)
        self._children.append(link)

    def append(self, link):
        """Append ``link`` as the next child."""
        self.add_link(link)

    def _rename_children(self):
        for i, child in enumerate(self._children):
            child.name = str(i)

    def children(self):
        return iter(self._children)

    def params(self, include_uninit=True):
        yield from super().params(include_uninit)
        for child in self._children:
            yield from child.params(include_uninit)

    def namedparams(self, include_uninit=True):
        yield from super().namedparams(include_uninit)
        for i, child in enumerate(self._children):
            prefix = '/{}'.format(i)
            for path, param in child.namedparams(include_uninit):
                yield prefix + path, param

    def namedlinks(self, skipself=False):
        if not skipself:
            yield '/', self
        for i, child in enumerate(self._children):
            prefix = '/{}'.format(i)
            yield prefix, child
            for path, link in child.namedlinks(skipself=True):
                yield prefix + path, link

    def _copy_children(self, src, mode):
        self._children = [child.copy(mode) for child in src._children]
        self._rename_children()

    def device_resident_accept(self, visitor):
        super().device_resident_accept(visitor)
        for child in self._children:
            child.device_resident_accept(visitor)

    def serialize(self, serializer):
        super().serialize(serializer)
        for i, child in enumerate(self._children):
            child.serialize(serializer[str(i)])

    def __repr__(self):
        if not self._children:
            return '{}()'.format(type(self).__name__)
        lines = ['{}('.format(type(self).__name__)]
        for i, child in enumerate(self._children):
            lines.append('  ({}): {},'.format(
                i, repr(child).replace('\n', '\n  ')))
        lines.append(')')
        return '\n'.join(lines)


def _is_shape(value):
    if value is None:
        return True
    if isinstance(value, (list, tuple)):
        return all(isinstance(v, (int, numpy.integer)) for v in value)
    try:
        int(value)
    except (TypeError, ValueError):
        return False
    return True


def _shape_and_dtype(value):
    """``(shape, dtype)`` of a legacy ``Link(name=value)`` argument: a
    shape (float32) or a ``(shape, dtype)`` pair."""
    if _is_shape(value):
        return value, numpy.float32
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return value[0], value[1]
    raise TypeError(
        'Link: expected a shape or a (shape, dtype) pair for a parameter, '
        'got {!r}'.format(value))


def _copy_param(src, mode):
    """A copy of Parameter ``src`` for ``Link.copy(mode)``."""
    param = copy_module.copy(src)  # the same slot
    param.grad = None
    if mode == 'share':
        return param
    param._data = [None]  # a slot of its own
    param.update_rule = copy_module.deepcopy(src.update_rule)
    if src.array is not None:
        if mode == 'copy':
            param.array = src.array.copy()
            if src.grad is not None:
                param.grad = src.grad.copy()
        else:
            param.initialize(src.shape)
    return param
