"""TimerHook: elapsed time of each function type, forward and backward."""
import collections
import sys
import time

from cpuframe import function_hook
from cpuframe.backends import cuda

_SECONDS_PER_UNIT = {'sec': 1.0, 'ms': 1e-3, 'us': 1e-6, 'ns': 1e-9}


def _impl_name(function):
    """The class name of the function's implementation.

    An old-style ``Function`` runs inside a FunctionAdapter; the name
    reported is that of the Function, as Chainer does.
    """
    impl = getattr(function, 'function', None)
    if impl is not None and type(function).__name__ == 'FunctionAdapter':
        return type(impl).__name__
    return type(function).__name__


def _on_gpu(arrays):
    """Whether some of ``arrays`` (None allowed) is a CuPy array."""
    if cuda.cupy is None:
        return False
    return any(a is not None and cuda.is_cupy_array(a) for a in arrays)


def _time_unit(seconds):
    """The largest of sec, ms, us, ns in which ``seconds`` is at least 1."""
    for unit in ('sec', 'ms', 'us'):
        if seconds >= _SECONDS_PER_UNIT[unit]:
            return unit
    return 'ns'


def _format_times(seconds_list, unit, where):
    """``seconds_list`` as strings such as ``'1.24sec'`` in ``unit``.

    ``'auto'`` uses one unit for all, the one that suits the largest time;
    ``'auto_foreach'`` chooses a unit for each time.
    """
    if unit == 'auto':
        unit = _time_unit(max(seconds_list, default=0.0))
    elif unit != 'auto_foreach' and unit not in _SECONDS_PER_UNIT:
        raise ValueError(
            "{}: expected unit 'auto', 'auto_foreach', 'sec', 'ms', 'us' or "
            "'ns', got {!r}".format(where, unit))
    ret = []
    for s in seconds_list:
        u = _time_unit(s) if unit == 'auto_foreach' else unit
        ret.append('{:3.2f}{}'.format(s / _SECONDS_PER_UNIT[u], u))
    return ret


def _write_table(rows, file):
    """Write ``rows`` (lists of strings) with right-aligned columns."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        file.write('  '.join(cell.rjust(w) for cell, w in zip(row, widths)))
        file.write('\n')
    if hasattr(file, 'flush'):
        file.flush()


class _Stopwatch:
    """Start/stop timing that nests: the total counts outermost calls only."""

    def __init__(self):
        self.call_history = []
        self._starts = []
        self._total_time = 0.0

    def start(self, on_gpu=False):
        # On the GPU the clock is read once the queued kernels have run.
        if on_gpu:
            cuda.cupy.cuda.get_current_stream().synchronize()
        self._starts.append(time.perf_counter())

    def stop(self, name, on_gpu=False):
        if on_gpu:
            cuda.cupy.cuda.get_current_stream().synchronize()
        elapsed = time.perf_counter() - self._starts.pop()
        self.call_history.append((name, elapsed))
        if not self._starts:
            self._total_time += elapsed

    def total_time(self):
        return self._total_time

    def summary(self):
        ret = collections.OrderedDict()
        for name, elapsed in self.call_history:
            record = ret.setdefault(name, {'elapsed_time': 0.0,
                                           'occurrence': 0})
            record['elapsed_time'] += elapsed
            record['occurrence'] += 1
        return ret

    def print_report(self, header, unit, file, where):
        summary = self.summary()
        times = _format_times(
            [r['elapsed_time'] for r in summary.values()], unit, where)
        rows = [[header, 'ElapsedTime', 'Occurrence']]
        for (name, record), t in zip(summary.items(), times):
            rows.append([name, t, str(record['occurrence'])])
        _write_table(rows, file)


class _TimerReport:
    """The stopwatch and report of the function and link TimerHooks.

    A subclass sets ``_report_header``, the first column's title, and
    times its calls with ``self._watch``.
    """

    _report_header = None

    def __init__(self):
        self._watch = _Stopwatch()

    @property
    def call_history(self):
        return self._watch.call_history

    def total_time(self):
        """Seconds spent in the outermost timed calls, in all."""
        return self._watch.total_time()

    def summary(self):
        """``{name: {'elapsed_time': s, 'occurrence': n}}``.

        ``name`` is the function (or link class) name.  Ordered by first
        occurrence; ``elapsed_time`` is in seconds.
        """
        return self._watch.summary()

    def print_report(self, unit='auto', file=None):
        """Print the summary as a table.

        Args:
            unit (str): ``'sec'``, ``'ms'``, ``'us'`` or ``'ns'``;
                ``'auto'`` (one unit suiting the largest time) or
                ``'auto_foreach'`` (a unit per row).
            file: where to write (default: ``sys.stdout``).
        """
        self._watch.print_report(self._report_header, unit,
                                 sys.stdout if file is None else file,
                                 'TimerHook.print_report')


class TimerHook(_TimerReport, function_hook.FunctionHook):
    """Function hook measuring the elapsed time of functions.

    The forward and the backward of every function called while the hook
    is registered are timed and counted by function type.  A function
    called inside another one's forward or backward (e.g. the functions a
    backward is made of) is counted on its own, and its time is also part
    of the enclosing one's; ``total_time`` counts the outermost calls only.

    Example::

        from cpuframe.function_hooks import TimerHook
        with TimerHook() as hook:
            loss = model(x, t)
            loss.backward()
        hook.print_report()

    prints a table such as::

               FunctionName  ElapsedTime  Occurrence
             LinearFunction      1.24sec        3900
                       ReLU      0.59sec        2600

    Attributes:
        call_history (list): ``(function name, seconds)`` per call.
    """

    name = 'TimerHook'
    _report_header = 'FunctionName'

    def forward_preprocess(self, function, in_data):
        self._watch.start(_on_gpu(in_data))

    def forward_postprocess(self, function, in_data):
        self._watch.stop(_impl_name(function), _on_gpu(in_data))

    def backward_preprocess(self, function, in_data, out_grad):
        self._watch.start(_on_gpu(in_data + out_grad))

    def backward_postprocess(self, function, in_data, out_grad):
        self._watch.stop(_impl_name(function), _on_gpu(in_data + out_grad))
