"""LogReport, PlotReport and PrintReport registered with
``call_before_training=True`` (Chainer 7's MNIST example): the values
observed before training (the first evaluation) are an entry/point of
their own at epoch 0, not averaged into epoch 1's."""
import io
import json
import sys
import types

import numpy
import pytest

from cpuframe import links as L
from cpuframe import optimizers, training
from cpuframe.datasets import TupleDataset
from cpuframe.iterators import SerialIterator
from cpuframe.training import extensions
from cpuframe.training.extensions import plot_report


class _Figure:
    def __init__(self, record):
        self.record = record

    def add_subplot(self, *args):
        return self

    def set_xlabel(self, label):
        pass

    def grid(self):
        pass

    def plot(self, xs, ys, marker=None, label=None):
        self.record.setdefault(label, []).append(list(zip(xs, ys)))

    def has_data(self):
        return True

    def legend(self, **kwargs):
        return None

    def savefig(self, path, **kwargs):
        with open(path, 'w') as f:
            f.write('plot')


@pytest.fixture
def stub_matplotlib(monkeypatch):
    """What PlotReport drew, by label: one list of (x, y) per figure."""
    record = {}
    mpl = types.ModuleType('matplotlib')
    pyplot = types.ModuleType('matplotlib.pyplot')
    pyplot.figure = lambda: _Figure(record)
    pyplot.close = lambda fig=None: None
    mpl.pyplot = pyplot
    monkeypatch.setitem(sys.modules, 'matplotlib', mpl)
    monkeypatch.setitem(sys.modules, 'matplotlib.pyplot', pyplot)
    monkeypatch.setattr(plot_report, '_available', None)
    return record


def _mnist_like_trainer(tmp_path, epochs=2):
    rng = numpy.random.RandomState(0)
    x = rng.randn(24, 4).astype(numpy.float32)
    t = (x[:, 0] + x[:, 1] > 0).astype(numpy.int32)
    model = L.Classifier(L.Linear(4, 2))
    opt = optimizers.SGD(lr=0.5).setup(model)
    train = SerialIterator(TupleDataset(x[:16], t[:16]), 4, shuffle=False)
    test = SerialIterator(TupleDataset(x[16:], t[16:]), 4, repeat=False,
                          shuffle=False)
    trainer = training.Trainer(training.StandardUpdater(train, opt),
                               (epochs, 'epoch'), out=str(tmp_path))
    out = io.StringIO()
    # Registered in the order of Chainer's MNIST example.
    trainer.extend(extensions.Evaluator(test, model),
                   call_before_training=True)
    trainer.extend(extensions.LogReport(), call_before_training=True)
    keys = ['main/loss', 'validation/main/loss', 'validation/main/accuracy']
    trainer.extend(extensions.PlotReport(keys[:2], 'epoch',
                                         filename='loss.png'),
                   call_before_training=True)
    trainer.extend(extensions.PlotReport(keys[2:], 'epoch',
                                         filename='accuracy.png'),
                   call_before_training=True)
    trainer.extend(extensions.PrintReport(['epoch'] + keys, out=out),
                   call_before_training=True)
    return trainer, out


def test_plot_report_plots_the_evaluation_before_training(
        tmp_path, stub_matplotlib):
    trainer, out = _mnist_like_trainer(tmp_path)
    trainer.run()
    log = trainer.get_extension('LogReport').log
    assert [e['epoch'] for e in log] == [0, 1, 2]
    assert [e['iteration'] for e in log] == [0, 4, 8]
    assert 'main/loss' not in log[0]      # no update before training
    # The last figure drawn holds every point: epoch 0 is the evaluation
    # before training, epochs 1 and 2 exactly what LogReport logged.
    acc = stub_matplotlib['validation/main/accuracy'][-1]
    assert acc == [(e['epoch'], e['validation/main/accuracy']) for e in log]
    val_loss = stub_matplotlib['validation/main/loss'][-1]
    assert val_loss == [(e['epoch'], e['validation/main/loss'])
                        for e in log]
    assert stub_matplotlib['main/loss'][-1] == [
        (e['epoch'], e['main/loss']) for e in log[1:]]
    # One figure per call: before training, then at each epoch.
    assert len(stub_matplotlib['validation/main/accuracy']) == 3
    assert (tmp_path / 'accuracy.png').read_text() == 'plot'
    # PrintReport prints the epoch-0 row, then one per epoch.
    lines = out.getvalue().splitlines()
    assert lines[0].split() == ['epoch', 'main/loss', 'validation/main/loss',
                                'validation/main/accuracy']
    rows = [line.split() for line in lines[1:]]
    assert [r[0] for r in rows] == ['0', '1', '2']
    assert len(rows[0]) == 3                 # no main/loss at epoch 0
    assert float(rows[0][2]) == pytest.approx(
        log[0]['validation/main/accuracy'], rel=1e-5)


def test_plot_report_serialized_points_include_epoch_0(tmp_path,
                                                      stub_matplotlib):
    from cpuframe.serializers import DictionarySerializer
    trainer, _ = _mnist_like_trainer(tmp_path, epochs=1)
    trainer.run()
    s = DictionarySerializer()
    trainer.get_extension('PlotReport_1').serialize(s)
    data = json.loads(str(s.target['_plot_accuracy.png']))
    assert [p[0] for p in data['validation/main/accuracy']] == [0, 1]


def test_without_call_before_training_nothing_is_plotted_at_epoch_0(
        tmp_path, stub_matplotlib):
    rng = numpy.random.RandomState(1)
    x = rng.randn(8, 3).astype(numpy.float32)
    t = (x[:, 0] > 0).astype(numpy.int32)
    model = L.Classifier(L.Linear(3, 2))
    opt = optimizers.SGD(lr=0.1).setup(model)
    it = SerialIterator(TupleDataset(x, t), 4, shuffle=False)
    trainer = training.Trainer(training.StandardUpdater(it, opt),
                               (2, 'epoch'), out=str(tmp_path))
    trainer.extend(extensions.LogReport())
    trainer.extend(extensions.PlotReport(['main/loss'], 'epoch'))
    trainer.run()
    log = trainer.get_extension('LogReport').log
    assert [e['epoch'] for e in log] == [1, 2]
    assert stub_matplotlib['main/loss'][-1] == [
        (e['epoch'], e['main/loss']) for e in log]
