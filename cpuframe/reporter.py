"""Reporting of observed values (losses, accuracies) during training.

``report({'loss': loss}, observer)`` records values into the current
reporter's observation under the observer's registered name
(``main/loss``); ``Summary``/``DictSummary`` aggregate them into means.
"""
import collections
import contextlib
import json
import threading
import warnings

import numpy

from cpuframe import _trace, backend
from cpuframe.configuration import config
from cpuframe.serializer import Serializer
from cpuframe.variable import Variable

_local = threading.local()


def _reporters():
    if not hasattr(_local, 'reporters'):
        _local.reporters = []
    return _local.reporters


class Reporter:
    """Collects reported values into ``observation`` inside ``scope``."""

    def __init__(self):
        self._observer_names = {}
        self.observation = {}

    def __enter__(self):
        _reporters().append(self)
        return self

    def __exit__(self, *args):
        _reporters().pop()

    @contextlib.contextmanager
    def scope(self, observation):
        """Make this the current reporter writing into ``observation``."""
        old = self.observation
        self.observation = observation
        self.__enter__()
        try:
            yield
        finally:
            self.__exit__(None, None, None)
            self.observation = old

    def add_observer(self, name, observer):
        """Register ``observer`` so its values are prefixed with ``name``."""
        self._observer_names[id(observer)] = name

    def add_observers(self, prefix, observers):
        """Register ``(name, observer)`` pairs under ``prefix``."""
        for name, observer in observers:
            self._observer_names[id(observer)] = prefix + name

    def report(self, values, observer=None):
        """Record ``values`` (a dict), prefixed by the observer's name."""
        if not config.keep_graph_on_report:
            values = {k: _copy_detached(v) for k, v in values.items()}
        if observer is not None:
            name = self._observer_names.get(id(observer))
            if name is None:
                raise KeyError(
                    'report: the observer {!r} is not registered with the '
                    'reporter'.format(type(observer).__name__))
            values = {name + '/' + k: v for k, v in values.items()}
        self.observation.update(values)


def _copy_detached(value):
    if isinstance(value, Variable):
        return Variable(value.array, requires_grad=False)
    return value


def get_current_reporter():
    """The innermost active Reporter (RuntimeError when none is)."""
    stack = _reporters()
    if not stack:
        raise RuntimeError('get_current_reporter: no reporter is active')
    return stack[-1]


def report(values, observer=None):
    """Report ``values`` to the current reporter; a no-op without one.

    Inside a ``@static_graph`` chain the report is a step of the recorded
    schedule (as ``@static_code``): a replay reports that call's values.
    """
    recorder = _trace.state.recorder
    if recorder is not None and not recorder.busy:
        recorder.record_code(_report, (values, observer), {})
        return
    _report(values, observer)


def _report(values, observer=None):
    stack = _reporters()
    if stack:
        stack[-1].report(values, observer)


@contextlib.contextmanager
def report_scope(observation):
    """Send reports made inside the block to ``observation`` (a dict)."""
    reporter = get_current_reporter()
    with reporter.scope(observation):
        yield


def _as_float_array(value):
    if isinstance(value, Variable):
        value = value.array
    if backend.is_array(value):
        return backend.cpu_device.send(value)
    return value


class Summary:
    """Running mean and variance of reported scalars (or arrays)."""

    def __init__(self):
        self._x = 0.0
        self._x2 = 0.0
        self._n = 0

    def add(self, value, weight=1):
        """Add ``value`` (a scalar, array or Variable) with ``weight``."""
        value = _as_float_array(value)
        self._x += weight * value
        self._x2 += weight * value * value
        self._n += weight

    def compute_mean(self):
        """The mean of the values added so far."""
        return self._x / self._n

    def make_statistics(self):
        """``(mean, std)`` of the values added so far."""
        mean = self._x / self._n
        var = self._x2 / self._n - mean * mean
        return mean, numpy.sqrt(numpy.maximum(var, 0))

    def serialize(self, serializer):
        """Save or load the sums (keys ``_x``, ``_x2``, ``_n``)."""
        try:
            self._x = serializer('_x', self._x)
            self._x2 = serializer('_x2', self._x2)
            self._n = serializer('_n', self._n)
        except KeyError:
            warnings.warn('Summary: the previous statistics are not in the '
                          'snapshot; starting from empty ones', stacklevel=2)


class DictSummary:
    """A Summary per key of reported dicts; non-numeric values are skipped."""

    def __init__(self):
        self._summaries = collections.defaultdict(Summary)

    def add(self, d):
        for key, value in d.items():
            weight = 1
            if isinstance(value, tuple) and len(value) == 2:
                value, weight = value
            v = _as_float_array(value)
            if isinstance(v, (bool, str, bytes)):
                continue
            if isinstance(v, (int, float, numpy.number)) or (
                    getattr(v, 'ndim', None) == 0 and v.dtype.kind in 'iuf'):
                self._summaries[key].add(v, weight=weight)

    def compute_mean(self):
        return {k: s.compute_mean() for k, s in self._summaries.items()}

    def make_statistics(self):
        stats = {}
        for key, s in self._summaries.items():
            mean, std = s.make_statistics()
            stats[key] = mean
            stats[key + '.std'] = std
        return stats

    def serialize(self, serializer):
        """Save or load every summary in Chainer's layout: the key names as
        JSON under ``_names`` and summary ``i`` under ``_summaries/i/``."""
        names = list(self._summaries)
        if isinstance(serializer, Serializer):
            serializer('_names', json.dumps(names))
            for i, name in enumerate(names):
                self._summaries[name].serialize(
                    serializer['_summaries'][str(i)])
            return
        try:
            # The current names as the default: a checking (dry-run) pass
            # gets them back and leaves this summary as it is.
            stored = serializer('_names', json.dumps(names))
        except KeyError:
            warnings.warn('DictSummary: the names of the statistics are not '
                          'in the snapshot; starting from empty ones', stacklevel=2)
            return
        if isinstance(stored, numpy.ndarray):
            stored = stored[()]
        if isinstance(stored, bytes):
            stored = stored.decode('utf-8')
        summaries = collections.defaultdict(Summary)
        for i, name in enumerate(json.loads(str(stored))):
            summary = Summary()
            old = self._summaries.get(name)
            if old is not None:
                summary._x, summary._x2, summary._n = old._x, old._x2, old._n
            summary.serialize(serializer['_summaries'][str(i)])
            summaries[name] = summary
        self._summaries = summaries


