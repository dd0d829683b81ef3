"""CupyMemoryProfileHook: CuPy memory pool usage of each function type."""
import collections
import sys

from cpuframe import function_hook
from cpuframe.backends import cuda
from cpuframe.function_hooks.timer import _impl_name, _write_table

try:
    # CuPy's base class of memory hooks (when CuPy is installed).
    MemoryHook = cuda.cupy.cuda.memory_hook.MemoryHook
    memory_hook_available = True
except Exception:  # noqa: BLE001 - no CuPy, or one without memory hooks
    MemoryHook = object
    memory_hook_available = False

_BYTE_UNITS = ('B', 'KB', 'MB', 'GB', 'TB', 'PB', 'EB', 'ZB')


def _format_bytes(size, unit):
    if unit == 'auto':
        i = 0
        while i < len(_BYTE_UNITS) - 1 and size >= 1024.0 ** (i + 1):
            i += 1
    elif unit in _BYTE_UNITS:
        i = _BYTE_UNITS.index(unit)
    else:
        raise ValueError(
            'CupyMemoryProfileHook.print_report: expected unit "auto" or one '
            'of {}, got {!r}'.format(', '.join(_BYTE_UNITS), unit))
    return '{:3.2f}{}'.format(size / 1024.0 ** i, _BYTE_UNITS[i])


class CupyMemoryProfileHook(function_hook.FunctionHook):
    """Function hook measuring the CuPy memory pool use of functions.

    For each forward and backward it records the bytes the function took
    from the default CuPy memory pool (*used*) and the bytes the pool had
    to acquire from the GPU for it (*acquired*).  Needs CuPy and a GPU:
    constructing it without them raises ``RuntimeError``.

    Attributes:
        call_history (list): ``(function name, used bytes, acquired bytes)``
            per call.
    """

    name = 'CupyMemoryProfileHook'

    def __init__(self):
        try:
            cuda.check_cuda_available()
        except RuntimeError as e:
            raise RuntimeError(
                'CupyMemoryProfileHook: needs CuPy and a GPU ({})'.format(e)
            ) from None
        self.call_history = []
        self._pool = cuda.cupy.get_default_memory_pool()
        self._starts = []

    def _start(self):
        self._starts.append((self._pool.used_bytes(), self._pool.total_bytes()))

    def _stop(self, function):
        used0, total0 = self._starts.pop()
        self.call_history.append((
            _impl_name(function), self._pool.used_bytes() - used0,
            self._pool.total_bytes() - total0))

    def forward_preprocess(self, function, in_data):
        self._start()

    def forward_postprocess(self, function, in_data):
        self._stop(function)

    def backward_preprocess(self, function, in_data, out_grad):
        self._start()

    def backward_postprocess(self, function, in_data, out_grad):
        self._stop(function)

    def total_used_bytes(self):
        """Bytes used from the pool by all recorded calls."""
        return sum(used for _, used, _ in self.call_history)

    def total_acquired_bytes(self):
        """Bytes acquired by the pool in all recorded calls."""
        return sum(acquired for _, _, acquired in self.call_history)

    def summary(self):
        """``{name: {'used_bytes', 'acquired_bytes', 'occurrence'}}``."""
        ret = collections.OrderedDict()
        for name, used, acquired in self.call_history:
            record = ret.setdefault(name, {'used_bytes': 0,
                                           'acquired_bytes': 0,
                                           'occurrence': 0})
            record['used_bytes'] += used
            record['acquired_bytes'] += acquired
            record['occurrence'] += 1
        return ret

    def print_report(self, unit='auto', file=None):
        """Print the summary as a table (``unit``: 'auto', 'B', 'KB', ...)."""
        rows = [['FunctionName', 'UsedBytes', 'AcquiredBytes', 'Occurrence']]
        for name, record in self.summary().items():
            rows.append([name, _format_bytes(record['used_bytes'], unit),
                         _format_bytes(record['acquired_bytes'], unit),
                         str(record['occurrence'])])
        _write_table(rows, sys.stdout if file is None else file)


class CupyMemoryCumulativeHook(MemoryHook):
    """A CuPy memory hook summing the bytes taken from the pool
    (``used_bytes``) and the bytes the pool acquired from the GPU
    (``acquired_bytes``).  Without CuPy it is a plain object that nothing
    calls."""

    name = 'CupyMemoryCumulativeHook'

    def __init__(self):
        self.used_bytes = 0
        self.acquired_bytes = 0

    def alloc_preprocess(self, **kwargs):
        self.acquired_bytes += kwargs['mem_size']

    def malloc_preprocess(self, **kwargs):
        self.used_bytes += kwargs['mem_size']
