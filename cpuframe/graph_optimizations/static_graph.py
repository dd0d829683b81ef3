"""``chainer.graph_optimizations.static_graph``: the ``@static_graph`` decorator.

Chainer's experimental static-subgraph optimisation traces a chain's
``__call__`` on its first run and replays the recorded schedule from the
second run on. Its contract is that the decorated code defines the same
graph every iteration, so running it define-by-run every time computes the
same values and gradients. That is what cpuframe does: the decorator checks
its arguments, gives the chain a ``schedule_manager`` (whose
``end_forward()`` Chainer asks scripts to call when they skip backward) and
calls the method as written. cpuframe's speed comes from the intel64
backend's own fusion instead of a replayed schedule.

One difference a script could notice: side-effect code in the decorated
method that is not wrapped in ``@static_code`` runs only on the first
iteration under Chainer and on every iteration here.
"""
import functools

_OPTIONS = {
    'check_input_variables': True,
    'minimize_cache_size': True,
    'verbosity_level': 0,
    'enable_double_backprop': False,
}


class ScheduleManager:
    """What a static chain's ``schedule_manager`` offers scripts."""

    def __init__(self, minimize_cache_size=True, verbosity_level=0):
        self.minimize_cache_size = minimize_cache_size
        self.verbosity_level = verbosity_level

    def end_forward(self):
        """Chainer: mark the end of a forward pass without backward. No-op."""

    def __repr__(self):
        return '<ScheduleManager (define-by-run; nothing recorded)>'


def static_graph(*args, **kwargs):
    """Mark a Chain's ``__call__`` (or ``forward``) as a static subgraph.

    Use as ``@static_graph`` or ``@static_graph(verbosity_level=1, ...)``
    with Chainer's keyword arguments (``check_input_variables``,
    ``minimize_cache_size``, ``verbosity_level``,
    ``enable_double_backprop``). The method runs define-by-run on every call
    (see the module docstring); results and gradients are the ones Chainer's
    schedule computes.
    """
    unknown = sorted(set(kwargs) - set(_OPTIONS))
    if unknown:
        raise TypeError(
            'static_graph: unexpected keyword argument(s) {}; expected some of '
            '{}'.format(', '.join(unknown), ', '.join(sorted(_OPTIONS))))
    options = dict(_OPTIONS, **kwargs)
    if len(args) == 1 and not kwargs and callable(args[0]):
        return _decorate(args[0], options)
    if args:
        raise TypeError('static_graph: expected the method to decorate or keyword '
                        'arguments only, got {!r}'.format(args[0]))
    return lambda func: _decorate(func, options)


def _decorate(func, options):
    if not callable(func):
        raise TypeError('static_graph: expected a method, got {!r}'.format(func))

    @functools.wraps(func)
    def wrapped(chain, *args, **kwargs):
        if getattr(chain, 'schedule_manager', None) is None:
            object.__setattr__(chain, 'schedule_manager', ScheduleManager(
                options['minimize_cache_size'], options['verbosity_level']))
        return func(chain, *args, **kwargs)
    wrapped.static_graph_options = options
    return wrapped
