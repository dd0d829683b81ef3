"""TimerHook: elapsed time of the forward of each link type."""
from cpuframe import link_hook
from cpuframe.backends import cuda
from cpuframe.function_hooks.timer import _TimerReport


def _link_on_gpu(link):
    return cuda.cupy is not None and getattr(link, 'xp', None) is cuda.cupy


class TimerHook(_TimerReport, link_hook.LinkHook):
    """Link hook measuring the elapsed time of ``Link.forward``.

    Every call of a link while the hook is registered is timed and counted
    by link class.  A link called inside another one (the layers of a
    Chain) is counted on its own, and its time is also part of the
    enclosing link's; ``total_time`` counts the outermost calls only.

    Example::

        from cpuframe.link_hooks import TimerHook
        with TimerHook() as hook:
            model(x, t)
        hook.print_report()

    prints a table such as::

          LinkName  ElapsedTime  Occurrence
            Linear     41.42sec        2100
               MLP     42.09sec         700

    Attributes:
        call_history (list): ``(link class name, seconds)`` per call.
    """

    name = 'TimerHook'
    _report_header = 'LinkName'

    def forward_preprocess(self, args):
        self._watch.start(_link_on_gpu(args.link))

    def forward_postprocess(self, args):
        self._watch.stop(type(args.link).__name__, _link_on_gpu(args.link))
