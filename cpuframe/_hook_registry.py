"""What FunctionHook and LinkHook share: where hooks are registered.

A kind of hook has one :class:`GlobalHooks` (this thread's ``with hook:``
registrations); each function node or link has its own ordered dict of
local hooks.  :func:`merged` gives the hooks to call, :class:`RegisteredHook`
is the ``with hook:`` part of both hook bases, :func:`add_local` and
:func:`delete_local` the body of ``add_hook``/``delete_hook``.
"""
import collections
import threading


class GlobalHooks(threading.local):
    """This thread's global hooks of one kind: ``hooks``, ``{name: hook}``."""

    def __init__(self):
        self.hooks = collections.OrderedDict()


def merged(global_hooks, local_hooks):
    """The hooks to call: global ones, then local; () if there is none.

    A local hook with the name of a global one replaces it (in its place).
    """
    if local_hooks:
        hooks = collections.OrderedDict(global_hooks)
        hooks.update(local_hooks)
    elif not global_hooks:
        return ()
    else:
        hooks = global_hooks
    return tuple(hooks.values())


class RegisteredHook:
    """``with hook:`` registration of a hook under ``hook.name``.

    A subclass sets ``_global_hooks`` (its kind's :class:`GlobalHooks`) and
    ``_hook_kind`` (the word in the duplicate-name error, e.g. 'function').
    """

    _global_hooks = None
    _hook_kind = None

    def __enter__(self):
        hooks = self._global_hooks.hooks
        if self.name in hooks:
            raise KeyError(
                '{}: a {} hook named {!r} is already registered; give this '
                'one another name'.format(type(self).__name__,
                                          self._hook_kind, self.name))
        hooks[self.name] = self
        self.added(None)
        return self

    def __exit__(self, *exc_info):
        hooks = self._global_hooks.hooks
        if hooks.get(self.name) is self:
            del hooks[self.name]
        self.deleted(None)


def add_local(hooks, hook, name, owner, label):
    """Register ``hook`` in ``owner``'s local ``hooks`` (``add_hook``).

    ``name`` defaults to ``hook.name``; ``label`` names the owner in the
    error raised when the name is already in use.
    """
    if name is None:
        name = hook.name
    if name in hooks:
        raise KeyError('{}.add_hook: a hook named {!r} is already '
                       'registered'.format(label, name))
    hooks[name] = hook
    hook.added(owner)


def delete_local(hooks, name, owner, label):
    """Unregister the hook ``name`` from ``owner``'s local ``hooks``."""
    if name not in hooks:
        raise KeyError('{}.delete_hook: no hook named {!r} is '
                       'registered'.format(label, name))
    hook = hooks.pop(name)
    hook.deleted(owner)
