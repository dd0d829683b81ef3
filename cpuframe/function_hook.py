"""FunctionHook: callbacks around the forward and backward of functions.

A hook is registered for every function called in this thread with
``with hook:``, or for one function node with ``node.add_hook(hook)``.
``FunctionNode.apply`` calls ``forward_preprocess``/``forward_postprocess``
around the forward computation, the backward engine calls
``backward_preprocess``/``backward_postprocess`` around each backward.
With no hook registered the cost is one dictionary check per call.
"""
from cpuframe import _hook_registry

_global = _hook_registry.GlobalHooks()


def get_function_hooks():
    """The ordered dict ``{name: hook}`` of this thread's global hooks.

    The hooks registered with ``with hook:``; they are called in this
    order, before those added to a function node with ``add_hook``.
    """
    return _global.hooks


def hooks_of(function_node):
    """The hooks to call for ``function_node``: global ones, then local.

    A local hook with the name of a global one replaces it (in its place).
    Returns an empty tuple when there is none, the common case.
    """
    hooks = _global.hooks
    local = function_node._local_function_hooks
    if not (hooks or local):
        return ()
    return _hook_registry.merged(hooks, local)


class FunctionHook(_hook_registry.RegisteredHook):
    """Base of the hooks called around the forward and backward of functions.

    Override any of ``forward_preprocess``, ``forward_postprocess``,
    ``backward_preprocess`` and ``backward_postprocess`` (they do nothing
    by default), and ``added``/``deleted`` to learn of registration.

    ``with hook:`` registers the hook for every function called in the
    block (in this thread), under ``hook.name``; ``node.add_hook(hook)``
    registers it for one function node.  Example::

        with cpuframe.function_hooks.TimerHook() as hook:
            loss = model(x, t)
            loss.backward()
        hook.print_report()

    Attributes:
        name (str): the key of the hook in the registries; two hooks of the
            same name cannot be registered at once in the same place.
    """

    name = 'FunctionHook'
    _global_hooks = _global
    _hook_kind = 'function'

    #: Whether the hook may keep the arrays it is shown in
    #: ``backward_preprocess``. While it may, the backward does not
    #: overwrite those gradients in place (no donation). A hook that reads
    #: only their shapes (a profiler measuring the step as it runs without
    #: hooks) sets it False: its ``backward_postprocess`` then gets arrays
    #: the node may have overwritten.
    holds_backward_arrays = True

    def added(self, function=None):
        """Called when the hook is registered.

        Args:
            function: the FunctionNode it was added to, or None when it is
                registered globally (``with hook:``).
        """

    def deleted(self, function=None):
        """Called when the hook is unregistered (``function`` as in ``added``)."""

    def forward_preprocess(self, function, in_data):
        """Called before ``function`` computes its forward on ``in_data``.

        Args:
            function (FunctionNode): the function being applied.
            in_data (tuple of arrays): its inputs.
        """

    def forward_postprocess(self, function, in_data):
        """Called after ``function`` computed its forward on ``in_data``."""

    def backward_preprocess(self, function, in_data, out_grad):
        """Called before the backward of ``function``.

        Args:
            function (FunctionNode): the function whose backward runs.
            in_data (tuple): its input arrays, None where an input was not
                retained for backward.
            out_grad (tuple of arrays): the gradients of its outputs.
        """

    def backward_postprocess(self, function, in_data, out_grad):
        """Called after the backward of ``function`` (arguments as above)."""
