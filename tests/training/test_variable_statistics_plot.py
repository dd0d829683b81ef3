"""VariableStatisticsPlot, Reservoir and Statistician."""
import math
import os
import sys
import types
import warnings

import numpy
import pytest

import cpuframe
from cpuframe import links as L
from cpuframe import optimizers, training
from cpuframe.datasets import TupleDataset
from cpuframe.iterators import SerialIterator
from cpuframe.training import extensions
from cpuframe.training.extensions import variable_statistics_plot as vsp

SIGMAS = (0, 0.13, 2.28, 15.87, 50, 84.13, 97.72, 99.87, 100)


def _percentile(values, p):
    """Linear interpolation between the closest ranks, by hand."""
    s = sorted(values)
    rank = p / 100 * (len(s) - 1)
    lo, hi = math.floor(rank), math.ceil(rank)
    return s[lo] + (s[hi] - s[lo]) * (rank - lo)


def _reference_row(values, sigmas=SIGMAS):
    n = len(values)
    mean = sum(values) / n
    std = math.sqrt(sum((v - mean) ** 2 for v in values) / n)
    return [mean, std] + [_percentile(values, p) for p in sigmas]


def _trainer(tmp_path, epochs=2):
    rng = numpy.random.RandomState(0)
    x = rng.randn(16, 3).astype(numpy.float32)
    t = (x[:, 0] > 0).astype(numpy.int32)
    model = L.Classifier(L.Linear(3, 2))
    opt = optimizers.SGD(0.1).setup(model)
    it = SerialIterator(TupleDataset(x, t), 4, shuffle=False)
    trainer = training.Trainer(training.StandardUpdater(it, opt),
                               (epochs, 'epoch'), out=str(tmp_path))
    return trainer, model


class _Recorder:
    """A stand-in for matplotlib.pyplot recording what is drawn."""

    def __init__(self):
        self.saved = []
        self.calls = []

    def subplots(self, nrows, ncols, **kwargs):
        self.shape = (nrows, ncols)
        axes = numpy.empty((nrows, ncols), object)
        for r in range(nrows):
            for c in range(ncols):
                axes[r, c] = _Axes(self.calls, (r, c))
        return _Fig(self.saved), axes

    def close(self, fig=None):
        pass


class _Axes:
    def __init__(self, calls, pos):
        self.calls, self.pos = calls, pos

    def __getattr__(self, name):
        def record(*args, **kwargs):
            self.calls.append((self.pos, name, args, kwargs))
        return record


class _Fig:
    def __init__(self, saved):
        self.saved = saved

    def savefig(self, path, format=None):
        with open(path, 'wb') as f:
            f.write(b'fake')
        self.saved.append(format)


@pytest.fixture
def stub_matplotlib(monkeypatch):
    recorder = _Recorder()
    mpl = types.ModuleType('matplotlib')
    colors = types.ModuleType('matplotlib.colors')
    colors.to_rgba = lambda c: (0.1, 0.2, 0.3, 1.0)
    pyplot = types.ModuleType('matplotlib.pyplot')
    pyplot.subplots = recorder.subplots
    pyplot.close = recorder.close
    mpl.colors, mpl.pyplot = colors, pyplot
    monkeypatch.setitem(sys.modules, 'matplotlib', mpl)
    monkeypatch.setitem(sys.modules, 'matplotlib.colors', colors)
    monkeypatch.setitem(sys.modules, 'matplotlib.pyplot', pyplot)
    monkeypatch.setattr(vsp, '_available', None)
    return recorder


def test_statistics_of_data_and_gradients(tmp_path, stub_matplotlib):
    trainer, model = _trainer(tmp_path, epochs=1)
    extra = cpuframe.Variable(numpy.array([[3., -1.], [0.5, 7.]],
                                          numpy.float32))
    ext = extensions.VariableStatisticsPlot([model, extra])
    expected = []

    def snapshot(tr):
        # after the update, before the extension (higher priority first)
        data = [float(v) for p in (model.predictor.W, model.predictor.b,
                                   extra) for v in p.array.ravel()]
        grads = [float(v) for p in (model.predictor.W, model.predictor.b)
                 for v in p.grad.ravel()]    # extra has no gradient
        expected.append([_reference_row(data), _reference_row(grads)])

    trainer.extend(snapshot, priority=training.PRIORITY_WRITER + 1)
    trainer.extend(ext)
    trainer.run()
    idxs, rows = ext._samples.get_data()
    assert idxs.tolist() == [1, 2, 3, 4]
    numpy.testing.assert_allclose(rows, numpy.array(expected), rtol=1e-5,
                                  atol=1e-6)


def test_figure_is_saved_on_its_trigger(tmp_path, stub_matplotlib):
    trainer, model = _trainer(tmp_path)
    saves = []
    trainer.extend(extensions.VariableStatisticsPlot(
        model, trigger=(3, 'iteration'), filename='stats.png'))
    trainer.extend(lambda tr: saves.append(
        (tr.updater.iteration, os.path.exists(tmp_path / 'stats.png'),
         len(stub_matplotlib.saved))), priority=0)
    trainer.run()
    # written at iterations 3 and 6 only
    assert [s[2] for s in saves] == [0, 0, 1, 1, 1, 2, 2, 2]
    assert saves[2][1] and not saves[1][1]
    assert stub_matplotlib.saved == ['png', 'png']
    assert stub_matplotlib.shape == (2, 2)
    drawn = {(pos, name) for pos, name, _, _ in stub_matplotlib.calls}
    assert ((0, 0), 'errorbar') in drawn and ((0, 1), 'errorbar') in drawn
    # 9 percentiles: 4 bands and the median as a line in each column
    bands = [c for c in stub_matplotlib.calls if c[1] == 'fill_between']
    lines = [c for c in stub_matplotlib.calls if c[1] == 'plot']
    assert len(bands) == 2 * 2 * 4 and len(lines) == 2 * 2
    titles = sorted(c[2][0] for c in stub_matplotlib.calls
                    if c[1] == 'set_title')
    assert titles == ['data', 'data', 'grad', 'grad']


def test_only_mean_and_data(tmp_path, stub_matplotlib):
    trainer, model = _trainer(tmp_path, epochs=1)
    ext = extensions.VariableStatisticsPlot(
        model.predictor.W, report_grad=False, plot_std=False,
        percentile_sigmas=(), trigger=(4, 'iteration'))
    trainer.extend(ext)
    trainer.run()
    _, rows = ext._samples.get_data()
    assert rows.shape == (4, 1, 1)
    numpy.testing.assert_allclose(rows[-1, 0, 0],
                                  model.predictor.W.array.mean(), rtol=1e-6)
    assert stub_matplotlib.shape == (1, 1)
    assert [c[1] for c in stub_matplotlib.calls if c[1] in (
        'plot', 'errorbar', 'fill_between')] == ['plot']


def test_writes_a_real_png(tmp_path):
    pytest.importorskip('matplotlib')
    import matplotlib
    matplotlib.use('Agg')
    trainer, model = _trainer(tmp_path)
    trainer.extend(extensions.VariableStatisticsPlot(model))
    trainer.run()
    with open(tmp_path / 'statistics.png', 'rb') as f:
        assert f.read(8) == b'\x89PNG\r\n\x1a\n'


def test_without_matplotlib_collects_but_writes_nothing(monkeypatch,
                                                         tmp_path):
    monkeypatch.setitem(sys.modules, 'matplotlib', None)
    monkeypatch.setattr(vsp, '_available', None)
    trainer, model = _trainer(tmp_path, epochs=1)
    with pytest.warns(UserWarning, match='(?s)VariableStatisticsPlot: '
                                         'matplotlib is not installed'):
        ext = extensions.VariableStatisticsPlot(model,
                                                trigger=(1, 'iteration'))
    trainer.extend(ext)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        trainer.run()
    assert ext._samples.counter == 4
    assert os.listdir(tmp_path) == []
    with pytest.warns(UserWarning):
        assert extensions.VariableStatisticsPlot.available() is False


def test_reservoir_keeps_first_items_then_samples_uniformly():
    r = vsp.Reservoir(3, (2,))
    for i in range(3):
        r.add(numpy.full(2, i), idx=10 * i)
    idxs, data = r.get_data()
    assert idxs.tolist() == [0, 10, 20]
    numpy.testing.assert_array_equal(data[:, 0], [0, 1, 2])

    numpy.random.seed(0)
    kept = numpy.zeros(6)
    trials = 3000
    for _ in range(trials):
        r = vsp.Reservoir(2, ())
        for i in range(6):
            r.add(i)
        idxs, data = r.get_data()
        assert list(idxs) == sorted(idxs)
        kept[data.astype(int)] += 1
    # each of the 6 items is kept with probability 2/6
    numpy.testing.assert_allclose(kept / trials, 1 / 3, atol=0.04)


def test_statistician_against_hand_computation():
    rng = numpy.random.RandomState(3)
    x = rng.randn(5, 7)
    stats = vsp.Statistician(True, True, (10, 50, 90.5))(x, axis=1)
    for i in range(5):
        row = [float(v) for v in x[i]]
        ref = _reference_row(row, (10, 50, 90.5))
        assert stats['mean'][i] == pytest.approx(ref[0])
        assert stats['std'][i] == pytest.approx(ref[1])
        numpy.testing.assert_allclose(stats['percentile'][:, i], ref[2:])
    whole = vsp.Statistician(True, False, None)(x, axis=None)
    assert set(whole) == {'mean'}
    assert whole['mean'] == pytest.approx(x.mean())


def test_errors(stub_matplotlib):
    model = L.Linear(2, 2)
    with pytest.raises(ValueError, match='VariableStatisticsPlot.*at least '
                                         'one variable'):
        extensions.VariableStatisticsPlot([])
    with pytest.raises(TypeError, match='VariableStatisticsPlot.*got int'):
        extensions.VariableStatisticsPlot(3)
    with pytest.raises(ValueError, match='nothing to plot'):
        extensions.VariableStatisticsPlot(model, plot_mean=False,
                                          plot_std=False,
                                          percentile_sigmas=())
    with pytest.raises(ValueError, match=r'percentiles in \[0, 100\]'):
        extensions.VariableStatisticsPlot(model, percentile_sigmas=(50, 101))
    with pytest.raises(TypeError, match='unexpected keyword.*bogus'):
        extensions.VariableStatisticsPlot(model, bogus=1)
    ext = extensions.VariableStatisticsPlot(model, file_name='old.png')
    assert ext._filename == 'old.png'
