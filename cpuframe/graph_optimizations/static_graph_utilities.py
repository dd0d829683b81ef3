"""``chainer.graph_optimizations.static_graph_utilities``."""
import functools


def static_code(*dec_args, **dec_kwargs):
    """Mark a function as side-effect code of a static subgraph (Chainer's API).

    In Chainer such a function is recorded into the static schedule and so
    runs on every iteration, not only the first. cpuframe never replays a
    schedule: every call of the chain runs its Python code, so the function
    simply runs each time it is called, as Chainer guarantees. Usable as
    ``@static_code`` or ``@static_code()``.
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
        return func(*args, **kwargs)
    return wrapped


def static_forward_optimizations(func, inputs):
    """Chainer's hook for a FunctionNode called inside a static subgraph.

    Nothing to do here: cpuframe records no static schedule.
    """
    return None
