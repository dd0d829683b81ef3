"""``chainer.graph_optimizations.static_graph_utilities``."""
import functools

from cpuframe import _trace


def static_code(*dec_args, **dec_kwargs):
    """Mark a function as side-effect code of a static subgraph (Chainer's API).

    A static chain's replay (``@static_graph``) runs only the recorded ops
    and the functions decorated with this, in the recorded order, with the
    arguments they were given while recording (those that were Variables
    or arrays of the chain take this call's values). Arrays or Variables it
    returns may feed later ops (as constants: ops it applies itself are run,
    not recorded, so no gradient flows through them). Outside a static
    chain it is a plain call. Usable as ``@static_code`` or
    ``@static_code()``.
    """
    if dec_kwargs:
        raise TypeError('static_code: expected no keyword arguments, got {}'.format(
            ', '.join(sorted(dec_kwargs))))
    if len(dec_args) == 1 and callable(dec_args[0]):
        return _wrap(dec_args[0])
    if dec_args:
        raise TypeError('static_code: expected a function to decorate, got {!r}'.format(
            dec_args[0]))
    return _wrap


def _wrap(func):
    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        recorder = _trace.state.recorder
        if recorder is not None and not recorder.busy:
            return recorder.record_code(func, args, kwargs)
        return func(*args, **kwargs)
    return wrapped


def static_forward_optimizations(func, inputs):
    """Chainer's hook for a FunctionNode called inside a static subgraph.

    Nothing to do here: a replay runs the node's own forward.
    """
    return None
