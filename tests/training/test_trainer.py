import io

import numpy
import pytest

from cpuframe import links as L
from cpuframe import optimizers, reporter, training
from cpuframe.datasets import TupleDataset
from cpuframe.iterators import SerialIterator
from cpuframe.training import extension as extension_module


def _trainer(counting_updater, stop=(10, 'iteration'), tmp_path='.', **kw):
    return training.Trainer(counting_updater(**kw), stop, out=str(tmp_path))


def test_runs_until_the_stop_trigger(counting_updater, tmp_path):
    trainer = _trainer(counting_updater, (7, 'iteration'), tmp_path / 'r')
    trainer.run()
    assert trainer.updater.iteration == 7
    assert (tmp_path / 'r').is_dir()
    assert trainer.updater.finalized == 1

    trainer = _trainer(counting_updater, (3, 'epoch'), tmp_path,
                       iters_per_epoch=5)
    trainer.run()
    assert trainer.updater.iteration == 15


def test_extension_triggers_and_priority_order(counting_updater, tmp_path):
    trainer = _trainer(counting_updater, (6, 'iteration'), tmp_path)
    log = []

    def make(tag):
        def ext(t):
            log.append((t.updater.iteration, tag))
        return ext

    trainer.extend(make('reader'), name='reader',
                   priority=training.PRIORITY_READER)
    trainer.extend(make('writer'), name='writer',
                   priority=training.PRIORITY_WRITER)
    trainer.extend(make('editor'), name='editor',
                   priority=training.PRIORITY_EDITOR)
    trainer.extend(make('reader2'), name='reader2',
                   priority=training.PRIORITY_READER)
    trainer.extend(make('every3'), name='every3', trigger=(3, 'iteration'),
                   priority=1000)
    trainer.run()
    at = {}
    for it, tag in log:
        at.setdefault(it, []).append(tag)
    assert at[1] == ['writer', 'editor', 'reader', 'reader2']
    assert at[3] == ['every3', 'writer', 'editor', 'reader', 'reader2']
    assert at[6][0] == 'every3'
    assert sorted(at) == [1, 2, 3, 4, 5, 6]
    assert [it for it, tag in log if tag == 'every3'] == [3, 6]


def test_extension_defaults_come_from_attributes(counting_updater, tmp_path):
    trainer = _trainer(counting_updater, (8, 'iteration'), tmp_path,
                       iters_per_epoch=4)
    calls = []

    @training.make_extension(trigger=(1, 'epoch'), priority=5)
    def per_epoch(t):
        calls.append(t.updater.iteration)

    class Ext(training.Extension):
        trigger = 2, 'iteration'

        def __call__(self, t):
            calls.append(-t.updater.iteration)

    trainer.extend(per_epoch)
    trainer.extend(Ext())
    trainer.run()
    assert [c for c in calls if c > 0] == [4, 8]
    assert [-c for c in calls if c < 0] == [2, 4, 6, 8]
    assert trainer.get_extension('per_epoch') is per_epoch
    assert isinstance(trainer.get_extension('Ext'), Ext)


def test_extension_names(counting_updater, tmp_path):
    trainer = _trainer(counting_updater, tmp_path=tmp_path)
    a, b, c = (lambda t: None), (lambda t: None), (lambda t: None)
    trainer.extend(a, name='ext')
    trainer.extend(b, name='ext')
    trainer.extend(c, name='ext')
    assert trainer.get_extension('ext') is a
    assert trainer.get_extension('ext_1') is b
    assert trainer.get_extension('ext_2') is c
    assert c.name == 'ext_2'
    with pytest.raises(ValueError, match="'training'"):
        trainer.extend(lambda t: None, name='training')
    with pytest.raises(ValueError, match="'missing' not found"):
        trainer.get_extension('missing')
    with pytest.raises(TypeError, match='callable'):
        trainer.extend(3)
    with pytest.raises(ValueError, match='invoke_before_training'):
        trainer.extend(lambda t: None, invoke_before_training=True)


def test_make_extension_sets_attributes():
    def init(t):
        pass

    @training.make_extension(trigger=(2, 'epoch'), default_name='n',
                             priority=7, initializer=init)
    def ext(t):
        pass

    assert ext.trigger == (2, 'epoch') and ext.default_name == 'n'
    assert ext.priority == 7 and ext.initialize is init
    assert ext.finalize is None and ext.on_error is None

    @training.make_extension()
    def plain(t):
        pass

    assert plain.trigger == (1, 'iteration')
    assert plain.priority == training.PRIORITY_READER
    assert plain.default_name == 'plain'
    assert extension_module.PRIORITY_WRITER > \
        extension_module.PRIORITY_EDITOR > extension_module.PRIORITY_READER
    with pytest.raises(ValueError, match='invoke_before_training'):
        training.make_extension(invoke_before_training=True)


class _Lifecycle(training.Extension):

    def __init__(self, log, fail_at=None):
        self.log = log
        self.fail_at = fail_at

    def initialize(self, trainer):
        self.log.append(('initialize', trainer.updater.iteration))

    def __call__(self, trainer):
        self.log.append(('call', trainer.updater.iteration))
        if trainer.updater.iteration == self.fail_at:
            raise ValueError('boom')

    def on_error(self, trainer, exc, tb):
        self.log.append(('on_error', str(exc), tb is not None))

    def finalize(self):
        self.log.append(('finalize',))


def test_extension_lifecycle(counting_updater, tmp_path):
    log = []
    trainer = _trainer(counting_updater, (2, 'iteration'), tmp_path)
    trainer.extend(_Lifecycle(log))
    trainer.run()
    assert log == [('initialize', 0), ('call', 1), ('call', 2),
                   ('finalize',)]
    with pytest.raises(RuntimeError, match='twice'):
        trainer.run()


def test_on_error_and_finalize_on_failure(counting_updater, tmp_path,
                                          capsys):
    log = []
    trainer = _trainer(counting_updater, (5, 'iteration'), tmp_path)
    trainer.extend(_Lifecycle(log, fail_at=2))

    def bad_handler(t, e, tb):
        raise KeyError('handler failed')

    other = _Lifecycle([])
    other.on_error = bad_handler
    trainer.extend(other, name='other')
    with pytest.raises(ValueError, match='boom'):
        trainer.run()
    assert log == [('initialize', 0), ('call', 1), ('call', 2),
                   ('on_error', 'boom', True), ('finalize',)]
    assert other.log[-1] == ('finalize',)
    assert trainer.updater.finalized == 1
    err = capsys.readouterr().err
    assert 'Exception in main training loop: boom' in err
    assert 'Exception in error handler' in err

    trainer = _trainer(counting_updater, (5, 'iteration'), tmp_path)
    trainer.extend(_Lifecycle([], fail_at=1))
    with pytest.raises(ValueError):
        trainer.run(show_loop_exception_msg=False)
    assert 'Exception in main training loop' not in capsys.readouterr().err


def test_call_before_training(counting_updater, tmp_path):
    trainer = _trainer(counting_updater, (2, 'iteration'), tmp_path)
    seen = []
    trainer.extend(lambda t: seen.append((t.updater.iteration,
                                          t.is_before_training)),
                   name='e', trigger=(1, 'iteration'),
                   call_before_training=True)
    trainer.run()
    assert seen == [(0, True), (1, False), (2, False)]


def test_finished_trigger_skips_initialize(counting_updater, tmp_path):
    trainer = _trainer(counting_updater, (2, 'iteration'), tmp_path)
    inits = []

    class Finished:
        finished = True

        def __call__(self, t):
            return False

    @training.make_extension(initializer=lambda t: inits.append(1))
    def ext(t):
        pass

    trainer.extend(ext, trigger=Finished())
    trainer.run()
    assert inits == []


def test_observation_and_reporter_observers(linear_data, tmp_path):
    x, t = linear_data(8)
    model = L.Classifier(L.Linear(3, 2))
    opt = optimizers.SGD(lr=0.1).setup(model)
    it = SerialIterator(TupleDataset(x, t), 4, shuffle=False)
    trainer = training.Trainer(
        training.updaters.StandardUpdater(it, opt), (2, 'iteration'),
        out=str(tmp_path))
    seen = []

    def ext(tr):
        reporter.report({'w': 1.0}, model.predictor)
        seen.append(dict(tr.observation))

    trainer.extend(ext)
    trainer.run()
    assert set(seen[0]) == {'main/loss', 'main/accuracy', 'main/predictor/w'}
    assert trainer.observation is not seen[-1]
    assert set(trainer.observation) == set(seen[-1])


def test_elapsed_time(counting_updater, tmp_path, monkeypatch):
    from cpuframe.training import trainer as trainer_module
    clock = [100.0]

    def fake_time():
        clock[0] += 0.5
        return clock[0]

    monkeypatch.setattr(trainer_module, '_get_time', fake_time)
    trainer = _trainer(counting_updater, (4, 'iteration'), tmp_path)
    with pytest.raises(RuntimeError, match='not been started'):
        _ = trainer.elapsed_time
    times = []
    trainer.extend(lambda t: times.append(t.elapsed_time), name='t')
    trainer.run()
    # start at 100.5; each call to the clock advances it by 0.5 s
    assert times == [0.5, 1.0, 1.5, 2.0]
    final = trainer.elapsed_time
    assert trainer.elapsed_time == final


def test_stop_trigger_none_or_callable(counting_updater, tmp_path):
    trainer = training.Trainer(counting_updater(), lambda t:
                               t.updater.iteration >= 3, out=str(tmp_path))
    trainer.run()
    assert trainer.updater.iteration == 3
    with pytest.raises(TypeError, match='get_trigger'):
        training.Trainer(counting_updater(), 5)


def test_extensions_argument(counting_updater, tmp_path):
    calls = []
    trainer = training.Trainer(counting_updater(), (2, 'iteration'),
                               out=str(tmp_path),
                               extensions=[lambda t: calls.append(1)])
    trainer.run()
    assert calls == [1, 1]


def test_trainer_serialize_layout(counting_updater, tmp_path):
    from cpuframe.serializers import DictionarySerializer

    class Stateful(training.Extension):
        trigger = 2, 'iteration'

        def __init__(self):
            self.n = 0

        def __call__(self, t):
            self.n += 1

        def serialize(self, s):
            self.n = s('n', self.n)

    trainer = _trainer(counting_updater, (4, 'iteration'), tmp_path)
    trainer.extend(Stateful(), name='st')
    trainer.run()
    s = DictionarySerializer()
    s.save(trainer)
    assert set(s.target) == {
        'updater/iteration', 'stop_trigger/previous_iteration',
        'stop_trigger/previous_epoch_detail', 'extensions/st/n',
        'extension_triggers/st/previous_iteration',
        'extension_triggers/st/previous_epoch_detail',
        '_snapshot_elapsed_time'}
    assert int(s.target['extensions/st/n']) == 2
    assert int(s.target['updater/iteration']) == 4
    assert numpy.asarray(s.target['_snapshot_elapsed_time']).dtype.kind == 'f'


def test_output_goes_to_the_given_stream(counting_updater, tmp_path):
    # PrintReport's out= is honoured (no stray stdout writes)
    from cpuframe.training import extensions
    out = io.StringIO()
    trainer = _trainer(counting_updater, (2, 'iteration'), tmp_path,
                       iters_per_epoch=1,
                       values=lambda i: {'loss': float(i)})
    trainer.extend(extensions.LogReport())
    trainer.extend(extensions.PrintReport(['epoch', 'loss'], out=out))
    trainer.run()
    assert out.getvalue().splitlines()[0].startswith('epoch')
