"""PrintReport: print LogReport's entries as a fixed-width table."""
import sys

from cpuframe.training import extension
from cpuframe.training.extensions import log_report as log_report_module
from cpuframe.training.extensions import util


def _sort_entries(keys):
    """The columns when none are given: epoch and iteration first,
    elapsed_time last, the rest sorted."""
    head = [k for k in ('epoch', 'iteration') if k in keys]
    tail = ['elapsed_time'] if 'elapsed_time' in keys else []
    rest = sorted(k for k in keys if k not in head and k not in tail)
    return head + rest + tail


class PrintReport(extension.Extension):
    """Prints the entries of a ``LogReport``'s log, one row per entry.

    Columns are ``max(10, len(name))`` characters wide and two spaces
    apart; numbers are formatted with ``{:<Wg}``, missing values are
    blank, exactly as Chainer prints them.  ``log_report`` is the name of
    a LogReport registered with the trainer, or a LogReport object this
    extension drives itself.  ``entries=None`` (a cpuframe addition;
    Chainer requires the list) takes the keys of the first logged entry.
    On a terminal each row is preceded by ``ESC[J``, which clears a
    ProgressBar drawn below; elsewhere the output is plain text.
    """

    def __init__(self, entries=None, log_report='LogReport', out=sys.stdout):
        if isinstance(entries, str):
            raise TypeError('PrintReport: expected a list of entry names, got '
                            'the string {!r}'.format(entries))
        self._entries = None if entries is None else list(entries)
        self._log_report = log_report
        self._out = out
        self._log_len = 0
        self._header = None
        self._templates = None
        if self._entries is not None:
            self._make_templates(self._entries)

    def _make_templates(self, entries):
        widths = [max(10, len(s)) for s in entries]
        self._header = '  '.join(
            '{:%d}' % w for w in widths).format(*entries) + '\n'
        self._templates = [(entry, '{:<%dg}  ' % w, ' ' * (w + 2))
                           for entry, w in zip(entries, widths)]

    def _get_log_report(self, trainer):
        log_report = self._log_report
        if isinstance(log_report, str):
            return trainer.get_extension(log_report)
        if isinstance(log_report, log_report_module.LogReport):
            log_report(trainer)
            return log_report
        raise TypeError(
            'PrintReport: expected log_report as the name of a LogReport or a '
            'LogReport, got {}'.format(type(log_report).__name__))

    def __call__(self, trainer):
        log = self._get_log_report(trainer).log
        if self._templates is None:
            if not log:
                return
            self._entries = _sort_entries(list(log[0]))
            self._make_templates(self._entries)
        out = self._out
        if self._header:
            out.write(self._header)
            self._header = None
        tty = util._isatty(out)
        while len(log) > self._log_len:
            if tty:
                # Clear the progress bar drawn below the cursor, if any.
                out.write('\033[J')
            self._print(log[self._log_len])
            self._log_len += 1

    def _print(self, observation):
        out = self._out
        for entry, template, empty in self._templates:
            if entry in observation:
                out.write(template.format(observation[entry]))
            else:
                out.write(empty)
        out.write('\n')
        if hasattr(out, 'flush'):
            out.flush()

    def serialize(self, serializer):
        if isinstance(self._log_report, log_report_module.LogReport):
            self._log_report.serialize(serializer['_log_report'])
