import numpy
import pytest

from cpuframe import Variable, reporter


def test_report_with_observer_and_scope():
    r = reporter.Reporter()
    observer = object()
    r.add_observer('main', observer)
    obs = {}
    with r.scope(obs):
        reporter.report({'loss': 1.5}, observer)
        reporter.report({'x': 2})
        assert reporter.get_current_reporter() is r
    assert obs == {'main/loss': 1.5, 'x': 2}


def test_report_without_reporter_is_noop_and_unregistered_observer():
    reporter.report({'a': 1})
    r = reporter.Reporter()
    with r:
        with pytest.raises(KeyError, match='not registered'):
            reporter.report({'a': 1}, object())


def test_reported_variables_are_detached():
    r = reporter.Reporter()
    x = Variable(numpy.array(2.0, numpy.float32))
    y = x * 3
    obs = {}
    with r.scope(obs):
        reporter.report({'y': y})
    assert obs['y'].creator is None and float(obs['y'].array) == 6.0


def test_report_scope_nests():
    r = reporter.Reporter()
    outer = {}
    with r.scope(outer):
        inner = {}
        with reporter.report_scope(inner):
            reporter.report({'a': 1})
        reporter.report({'b': 2})
    assert inner == {'a': 1} and outer == {'b': 2}


def test_summary_statistics():
    s = reporter.Summary()
    for v in (1.0, 2.0, 3.0):
        s.add(Variable(numpy.array(v, numpy.float32)))
    assert s.compute_mean() == pytest.approx(2.0)
    mean, std = s.make_statistics()
    assert mean == pytest.approx(2.0) and std == pytest.approx(numpy.std([1, 2, 3]))


def test_dict_summary():
    d = reporter.DictSummary()
    d.add({'a': 1.0, 'b': numpy.array(4.0), 'skip': 'text'})
    d.add({'a': 3.0, 'b': (2.0, 2)})
    means = d.compute_mean()
    assert means['a'] == pytest.approx(2.0)
    assert means['b'] == pytest.approx((4 + 4) / 3)
    assert 'skip' not in means
    stats = d.make_statistics()
    assert 'a.std' in stats
