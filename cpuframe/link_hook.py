"""LinkHook: callbacks around the forward of links.

A hook is registered for every link called in this thread with
``with hook:``, or for one link with ``link.add_hook(hook)``.
``Link.__call__`` calls ``forward_preprocess`` and ``forward_postprocess``
around ``forward``.  With no hook registered the cost is one dictionary
check per call.
"""
from cpuframe import _hook_registry

_global = _hook_registry.GlobalHooks()


def _get_link_hooks():
    """The ordered dict ``{name: hook}`` of this thread's global link hooks."""
    return _global.hooks


def hooks_of(link):
    """The hooks to call for ``link``: global ones, then local; () if none."""
    hooks = _global.hooks
    local = link._local_link_hooks
    if not (hooks or local):
        return ()
    return _hook_registry.merged(hooks, local)


class _ForwardPreprocessCallbackArgs:
    """What ``forward_preprocess`` receives.

    Attributes:
        link (Link): the link being called.
        forward_name (str): the name of the method called (``'forward'``).
        args (tuple): the positional arguments of the call.
        kwargs (dict): the keyword arguments of the call.
    """

    def __init__(self, link, forward_name, args, kwargs):
        self.link = link
        self.forward_name = forward_name
        self.args = args
        self.kwargs = kwargs

    def __repr__(self):
        return '<{} link={!r} forward_name={!r}>'.format(
            type(self).__name__, type(self.link).__name__, self.forward_name)


class _ForwardPostprocessCallbackArgs(_ForwardPreprocessCallbackArgs):
    """What ``forward_postprocess`` receives: the same plus ``out``.

    Attributes:
        out: what the forward returned.
    """

    def __init__(self, link, forward_name, args, kwargs, out):
        super().__init__(link, forward_name, args, kwargs)
        self.out = out


class LinkHook(_hook_registry.RegisteredHook):
    """Base of the hooks called around the forward of links.

    Override ``forward_preprocess`` and ``forward_postprocess`` (they do
    nothing by default), and ``added``/``deleted`` to learn of registration.

    ``with hook:`` registers the hook for every link called in the block (in
    this thread), under ``hook.name``; ``link.add_hook(hook)`` registers it
    for one link.  Example::

        with cpuframe.link_hooks.TimerHook() as hook:
            model(x, t)
        hook.print_report()

    Attributes:
        name (str): the key of the hook in the registries; two hooks of the
            same name cannot be registered at once in the same place.
    """

    name = 'LinkHook'
    _global_hooks = _global
    _hook_kind = 'link'

    def added(self, link):
        """Called when the hook is registered.

        Args:
            link: the Link it was added to, or None when it is registered
                globally (``with hook:``).
        """

    def deleted(self, link):
        """Called when the hook is unregistered (``link`` as in ``added``)."""

    def forward_preprocess(self, args):
        """Called before the link's forward.

        Args:
            args: has ``link``, ``forward_name``, ``args`` and ``kwargs``.
        """

    def forward_postprocess(self, args):
        """Called after the link's forward; ``args`` also has ``out``."""
