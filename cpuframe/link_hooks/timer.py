"""TimerHook: elapsed time of the forward of each link type."""
import sys

from cpuframe import link_hook
from cpuframe.backends import cuda
from cpuframe.function_hooks.timer import _Stopwatch


def _link_on_gpu(link):
    return cuda.cupy is not None and getattr(link, 'xp', None) is cuda.cupy


class TimerHook(link_hook.LinkHook):
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

    def __init__(self):
        self._watch = _Stopwatch()

    @property
    def call_history(self):
        return self._watch.call_history

    def forward_preprocess(self, args):
        self._watch.start(_link_on_gpu(args.link))

    def forward_postprocess(self, args):
        self._watch.stop(type(args.link).__name__, _link_on_gpu(args.link))

    def total_time(self):
        """Seconds spent in the outermost timed calls, in all."""
        return self._watch.total_time()

    def summary(self):
        """``{link class name: {'elapsed_time': s, 'occurrence': n}}``."""
        return self._watch.summary()

    def print_report(self, unit='auto', file=None):
        """Print the summary as a table.

        Args:
            unit (str): ``'sec'``, ``'ms'``, ``'us'`` or ``'ns'``;
                ``'auto'`` (one unit suiting the largest time) or
                ``'auto_foreach'`` (a unit per row).
            file: where to write (default: ``sys.stdout``).
        """
        self._watch.print_report('LinkName', unit,
                                 sys.stdout if file is None else file,
                                 'TimerHook.print_report')
