"""Terminal helpers shared by ProgressBar and Evaluator's progress bar."""
import collections
import datetime
import sys
import time


def _isatty(out):
    isatty = getattr(out, 'isatty', None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed file
        return False


class ProgressBar:
    """Draws a block of status lines that ``update`` redraws in place.

    On a terminal the block is erased (``ESC[J``) and redrawn, and the
    cursor is moved back to its first line (``ESC[nA``), so other output
    (PrintReport's rows) replaces the block and the block reappears below.
    Elsewhere (a file, a pipe) each update writes ``get_plain_line()``, one
    plain line without control characters.
    """

    def __init__(self, bar_length=None, out=None):
        self._bar_length = 50 if bar_length is None else bar_length
        self._out = sys.stdout if out is None else out
        self._recent_timing = collections.deque([], maxlen=100)
        self._tty = _isatty(self._out)

    def update_speed(self, iteration, epoch_detail):
        """Iterations and epochs per second over the recent updates."""
        now = time.time()
        self._recent_timing.append((iteration, epoch_detail, now))
        old_t, old_e, old_sec = self._recent_timing[0]
        span = now - old_sec
        if span != 0:
            return (iteration - old_t) / span, (epoch_detail - old_e) / span
        return float('inf'), float('inf')

    def bar(self, rate):
        """``[####......]`` filled to ``rate`` (0 to 1)."""
        marks = '#' * int(rate * self._bar_length)
        return '[{}{}]'.format(marks, '.' * (self._bar_length - len(marks)))

    def get_lines(self):
        """The lines of the block, each ending in a newline."""
        raise NotImplementedError

    def get_plain_line(self, lines):
        """The line written per update when the output is not a terminal."""
        return ' | '.join(line.strip() for line in lines) + '\n'

    def update(self):
        lines = self.get_lines()
        out = self._out
        if self._tty:
            out.write('\033[J')
            for line in lines:
                out.write(line)
            out.write('\033[{:d}A'.format(len(lines)))
        else:
            out.write(self.get_plain_line(lines))
        self.flush()

    def close(self):
        if self._tty:
            self._out.write('\033[J')
        self.flush()

    def flush(self):
        if hasattr(self._out, 'flush'):
            self._out.flush()


def _eta(seconds):
    seconds = max(seconds, 0.0)
    if seconds != seconds or seconds == float('inf'):
        return 'unknown'
    return str(datetime.timedelta(seconds=seconds))
