import json
import os
import stat
import sys
import types
import warnings

import numpy
import pytest

from cpuframe import Variable, config, optimizers, training
from cpuframe import functions as F
from cpuframe import links as L
from cpuframe.datasets import TupleDataset
from cpuframe.iterators import SerialIterator
from cpuframe.serializers import DictionarySerializer, NpzDeserializer
from cpuframe.training import extensions
from cpuframe.training.extensions import plot_report
from cpuframe.training.extensions.computational_graph import graph_to_dot


def _classifier_trainer(tmp_path, stop=(4, 'iteration'), lr=0.1):
    rng = numpy.random.RandomState(0)
    x = rng.randn(8, 3).astype(numpy.float32)
    t = (x[:, 0] > 0).astype(numpy.int32)
    model = L.Classifier(L.Linear(3, 2))
    opt = optimizers.SGD(lr=lr).setup(model)
    it = SerialIterator(TupleDataset(x, t), 2, shuffle=False)
    trainer = training.Trainer(training.StandardUpdater(it, opt), stop,
                               out=str(tmp_path))
    return trainer, model, opt


def test_observe_lr_and_observe_value(tmp_path):
    trainer, _, opt = _classifier_trainer(tmp_path, (4, 'iteration'))
    trainer.extend(extensions.ExponentialShift('lr', 0.5),
                   trigger=(1, 'iteration'))
    trainer.extend(extensions.observe_lr(), trigger=(1, 'iteration'))
    trainer.extend(extensions.observe_value(
        'it2', lambda t: 2 * t.updater.iteration), trigger=(1, 'iteration'))
    log_report = extensions.LogReport(trigger=(1, 'iteration'))
    trainer.extend(log_report)
    trainer.run()
    # observe_lr (a writer) runs before the shift (a reader): it sees the lr
    # the update of that iteration used
    assert [e['lr'] for e in log_report.log] == [0.1, 0.05, 0.025, 0.0125]
    assert [e['it2'] for e in log_report.log] == [2, 4, 6, 8]
    assert extensions.observe_lr().priority == training.PRIORITY_WRITER
    assert extensions.observe_lr().trigger == (1, 'epoch')


def test_fail_on_non_number(tmp_path):
    trainer, model, _ = _classifier_trainer(tmp_path, (4, 'iteration'))
    trainer.extend(extensions.FailOnNonNumber())

    def poison(t):
        if t.updater.iteration == 2:
            model.predictor.W.array[0, 0] = numpy.nan

    trainer.extend(poison, priority=training.PRIORITY_WRITER)
    with pytest.raises(RuntimeError, match=r'predictor/W.*diverged.*2'):
        trainer.run(show_loop_exception_msg=False)

    trainer, model, _ = _classifier_trainer(tmp_path, (4, 'iteration'))
    trainer.extend(extensions.FailOnNonNumber())
    trainer.run()
    assert trainer.updater.iteration == 4

    trainer, model, _ = _classifier_trainer(tmp_path, (4, 'iteration'))

    def poison_grad(t):
        model.predictor.b.grad[:] = numpy.inf

    trainer.extend(poison_grad, priority=training.PRIORITY_WRITER)
    trainer.extend(extensions.FailOnNonNumber(check_grad=False))
    trainer.run()
    trainer, model, _ = _classifier_trainer(tmp_path, (4, 'iteration'))
    trainer.extend(poison_grad, priority=training.PRIORITY_WRITER)
    trainer.extend(extensions.FailOnNonNumber())
    with pytest.raises(RuntimeError, match='gradient of parameter'):
        trainer.run(show_loop_exception_msg=False)


def test_micro_average(counting_updater, tmp_path):
    correct = [1, 2, 3, 4, 0, 5]
    total = [2, 4, 4, 5, 1, 5]
    updater = counting_updater(3, values=lambda i: {
        'correct': correct[i - 1], 'total': total[i - 1]})
    trainer = training.Trainer(updater, (2, 'epoch'), out=str(tmp_path))
    trainer.extend(extensions.MicroAverage('correct', 'total', 'acc'))
    log_report = extensions.LogReport(keys=['acc'])
    trainer.extend(log_report)
    trainer.run()
    assert [e['acc'] for e in log_report.log] == [6 / 10, 9 / 11]
    ext = extensions.MicroAverage('correct', 'total', 'acc')
    assert ext.priority == training.PRIORITY_EDITOR
    s = DictionarySerializer()
    ext.serialize(s)
    assert set(s.target) == {'_numerator', '_denominator'}


def test_graph_to_dot_exact_text():
    x = Variable(numpy.ones((2, 3), numpy.float32), name='x')
    h = F.exp(x)
    y = F.sum(h)
    nodes = {
        'y': y.node, 'sum': y.creator_node, 'h': h.node,
        'exp': h.creator_node, 'x': x.node}
    v = 'shape="octagon",fillcolor="#E0E0E0",style="filled"'
    f = 'shape="record",fillcolor="#6495ED",style="filled"'
    i = {k: id(n) for k, n in nodes.items()}
    expected = (
        'digraph graphname{rankdir=TB;'
        '%d [label="float32",%s];' % (i['y'], v) +
        '%d [label="Sum",%s];' % (i['sum'], f) +
        '%d [label="(2, 3), float32",%s];' % (i['h'], v) +
        '%d [label="Exp",%s];' % (i['exp'], f) +
        '%d [label="x: (2, 3), float32",%s];' % (i['x'], v) +
        '%d -> %d;' % (i['sum'], i['y']) +
        '%d -> %d;' % (i['h'], i['sum']) +
        '%d -> %d;' % (i['exp'], i['h']) +
        '%d -> %d;' % (i['x'], i['exp']) +
        '}')
    from cpuframe.training.extensions.computational_graph import (
        _func_style,
        _var_style,
    )
    assert graph_to_dot(y, _var_style, _func_style) == expected
    plain = graph_to_dot(y)
    assert '[label="Sum",shape="box"]' in plain
    assert '[label="x: (2, 3), float32",shape="oval"]' in plain
    with pytest.raises(TypeError, match='Variable'):
        graph_to_dot(3)


def test_dump_graph_in_a_trainer(tmp_path):
    trainer, _, _ = _classifier_trainer(tmp_path, (3, 'iteration'))
    was = config.keep_graph_on_report
    trainer.extend(extensions.dump_graph('main/loss'))
    calls = []
    trainer.extend(lambda t: calls.append(
        t.observation['main/loss'].creator is not None), name='probe')
    trainer.run()
    assert calls == [True, False, False]
    assert config.keep_graph_on_report == was
    dot = (tmp_path / 'cg.dot').read_text()
    assert dot.startswith('digraph graphname{rankdir=TB;')
    assert dot.endswith('}')
    assert 'SoftmaxCrossEntropy' in dot and 'label="Linear' in dot
    # loss <- SCE <- (y <- linear <- (x, W, b)), t: 7 variables/functions
    # joined by 7 edges
    assert dot.count('->') == 7
    trainer, _, _ = _classifier_trainer(tmp_path, (1, 'iteration'))
    trainer.extend(extensions.dump_graph('main/missing', filename='g.dot'))
    with pytest.raises(TypeError, match='main/missing'):
        trainer.run(show_loop_exception_msg=False)
    assert config.keep_graph_on_report == was


def test_unchain_variables(tmp_path):
    trainer, _, _ = _classifier_trainer(tmp_path, (1, 'iteration'))
    seen = []
    trainer.extend(extensions.dump_graph('main/loss'))
    trainer.extend(extensions.unchain_variables)
    trainer.extend(lambda t: seen.append(
        t.observation['main/loss'].creator), name='after',
        priority=training.PRIORITY_READER - 10)
    trainer.run()
    assert seen == [None]


def test_plot_report_without_matplotlib(monkeypatch, counting_updater,
                                        tmp_path):
    monkeypatch.setitem(sys.modules, 'matplotlib', None)
    monkeypatch.setattr(plot_report, '_available', None)
    with pytest.warns(UserWarning, match=r'(?s)matplotlib is not installed.*'
                      r'pip install cpuframe\[plot\]'):
        ext = extensions.PlotReport(['loss'])
    with pytest.warns(UserWarning):
        assert extensions.PlotReport.available() is False
    trainer = training.Trainer(counting_updater(
        2, values=lambda i: {'loss': 1.0}), (2, 'epoch'), out=str(tmp_path))
    trainer.extend(ext)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        trainer.run()
    assert os.listdir(tmp_path) == []


class _FakeAxes:
    def __init__(self, record):
        self.record = record
        self.lines = []

    def set_xlabel(self, label):
        self.record['xlabel'] = label

    def grid(self):
        self.record['grid'] = True

    def plot(self, xs, ys, marker=None, label=None):
        self.lines.append((label, list(xs), list(ys), marker))

    def has_data(self):
        return bool(self.lines)

    def legend(self, **kwargs):
        return 'legend'


class _FakeFigure:
    def __init__(self, record):
        self.record = record

    def add_subplot(self, spec):
        self.axes = _FakeAxes(self.record)
        return self.axes

    def savefig(self, path, format=None, **kwargs):
        self.record['format'] = format
        with open(path, 'w') as f:
            json.dump(self.axes.lines, f)


def _fake_matplotlib(monkeypatch):
    record = {'closed': 0}
    mpl = types.ModuleType('matplotlib')
    pyplot = types.ModuleType('matplotlib.pyplot')
    pyplot.figure = lambda: _FakeFigure(record)

    def close(fig=None):
        record['closed'] += 1

    pyplot.close = close
    mpl.pyplot = pyplot
    monkeypatch.setitem(sys.modules, 'matplotlib', mpl)
    monkeypatch.setitem(sys.modules, 'matplotlib.pyplot', pyplot)
    monkeypatch.setattr(plot_report, '_available', None)
    return record


def test_plot_report_data_flow_with_a_stub_matplotlib(monkeypatch,
                                                      counting_updater,
                                                      tmp_path):
    record = _fake_matplotlib(monkeypatch)
    updater = counting_updater(2, values=lambda i: {'loss': float(i),
                                                    'acc': 1.0})
    trainer = training.Trainer(updater, (3, 'epoch'), out=str(tmp_path))
    ext = extensions.PlotReport(['loss', 'val'], x_key='epoch',
                                filename='loss.png', marker='o')
    trainer.extend(ext)
    trainer.run()
    assert os.listdir(tmp_path) == ['loss.png']
    lines = json.loads((tmp_path / 'loss.png').read_text())
    # epoch means of loss 1,2 | 3,4 | 5,6; 'val' was never reported
    assert lines == [['loss', [1, 2, 3], [1.5, 3.5, 5.5], 'o']]
    assert record['xlabel'] == 'epoch' and record['grid']
    assert record['format'] == 'png' and record['closed'] == 3
    s = DictionarySerializer()
    ext.serialize(s)
    assert list(s.target) == ['_plot_loss.png']
    other = extensions.PlotReport(['loss', 'val'], filename='loss.png')
    NpzDeserializer(s.target).load(other)
    assert other._data['loss'] == [(1, 1.5), (2, 3.5), (3, 5.5)]
    with pytest.raises(ValueError, match='x_key'):
        extensions.PlotReport(['loss'], x_key='time')


def test_plot_report_with_real_matplotlib(counting_updater, tmp_path):
    pytest.importorskip('matplotlib')
    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.setattr(plot_report, '_available', None)
    try:
        updater = counting_updater(2, values=lambda i: {'loss': float(i)})
        trainer = training.Trainer(updater, (2, 'epoch'), out=str(tmp_path))
        trainer.extend(extensions.PlotReport(['loss'], 'epoch'))
        trainer.run()
    finally:
        monkeypatch.undo()
    assert (tmp_path / 'plot.png').read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'


def test_plot_file_mode_follows_the_umask(counting_updater, tmp_path,
                                          umask):
    pytest.importorskip('matplotlib')
    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.setattr(plot_report, '_available', None)
    umask(0o022)
    try:
        updater = counting_updater(2, values=lambda i: {'loss': float(i)})
        trainer = training.Trainer(updater, (1, 'epoch'), out=str(tmp_path))
        trainer.extend(extensions.PlotReport(['loss'], 'epoch'))
        trainer.run()
    finally:
        monkeypatch.undo()
    assert stat.S_IMODE((tmp_path / 'plot.png').stat().st_mode) == 0o644
    assert os.listdir(tmp_path) == ['plot.png']


def test_public_names():
    for name in ['Evaluator', 'LogReport', 'PrintReport', 'ProgressBar',
                 'PlotReport', 'snapshot', 'snapshot_object',
                 'ExponentialShift', 'LinearShift', 'StepShift',
                 'PolynomialShift', 'WarmupShift', 'MultistepShift',
                 'InverseShift', 'observe_value', 'observe_lr',
                 'FailOnNonNumber', 'dump_graph', 'DumpGraph',
                 'MicroAverage', 'unchain_variables', 'snapshot_writers']:
        assert hasattr(extensions, name), name
    for name in ['IntervalTrigger', 'ManualScheduleTrigger',
                 'MinValueTrigger', 'MaxValueTrigger', 'BestValueTrigger',
                 'EarlyStoppingTrigger', 'TimeTrigger', 'OnceTrigger']:
        assert hasattr(training.triggers, name), name
    import cpuframe
    assert cpuframe.training is training


def test_parameter_statistics(tmp_path):
    from cpuframe import reporter
    W = numpy.array([[0.0, 1.0], [2.0, 5.0]], numpy.float32)
    link = L.Linear(2, 2, initialW=W, initial_bias=0)
    link.cleargrads()  # gradients start NaN-filled, as in Chainer
    link.W.grad = numpy.full((2, 2), 3.0, numpy.float32)
    ext = extensions.ParameterStatistics(link, prefix='p',
                                         trigger=(2, 'iteration'))
    ext.register_statistics('sum', lambda x: x.sum())
    r = reporter.Reporter()
    trainer = types.SimpleNamespace(updater=types.SimpleNamespace(
        iteration=1, epoch_detail=0.5))
    observed = {}
    with r.scope(observed):
        ext(trainer)
    assert observed == {}        # the trigger has not fired yet
    trainer.updater.iteration = 2
    link.W.array[0, 0] = 4.0     # the mean over both calls is reported
    with r.scope(observed):
        ext(trainer)
    assert observed['p/None/W/data/mean'] == pytest.approx((2 + 3) / 2)
    assert observed['p/None/W/data/min'] == pytest.approx((0 + 1) / 2)
    assert observed['p/None/W/data/max'] == pytest.approx(5)
    assert observed['p/None/W/data/zeros'] == pytest.approx(0.5)
    assert observed['p/None/W/data/sum'] == pytest.approx((8 + 12) / 2)
    assert observed['p/None/W/grad/std'] == pytest.approx(0)
    assert observed['p/None/b/data/zeros'] == pytest.approx(2)
    assert 'p/None/b/grad/mean' not in observed      # no gradient yet
    expected_p50 = (numpy.percentile([0, 1, 2, 5], 50) +
                    numpy.percentile([4, 1, 2, 5], 50)) / 2
    assert observed['p/None/W/data/percentile/3'] == \
        pytest.approx(expected_p50)
