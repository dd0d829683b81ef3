import os
import stat

import numpy
import pytest

from cpuframe import links as L
from cpuframe import optimizers, training
from cpuframe.datasets import TupleDataset
from cpuframe.iterators import SerialIterator, ShuffleOrderSampler
from cpuframe.serializers import load_npz
from cpuframe.training import extensions


def _data(n=30, seed=0):
    rng = numpy.random.RandomState(seed)
    x = rng.randn(n, 3).astype(numpy.float32)
    t = (x[:, 0] + 0.5 * x[:, 1] > 0).astype(numpy.int32)
    return x, t


def _build(out, stop, n_out=2, snapshot_trigger=None, autoload=False):
    """A small classifier trained with MomentumSGD on a seeded shuffle,
    with a learning-rate schedule and a LogReport: everything a resumed
    run must restore."""
    x, t = _data()
    W = numpy.linspace(-1, 1, n_out * 3).reshape(n_out, 3).astype(
        numpy.float32)
    model = L.Classifier(L.Linear(3, n_out, initialW=W, initial_bias=0.1))
    opt = optimizers.MomentumSGD(lr=0.2, momentum=0.9).setup(model)
    it = SerialIterator(TupleDataset(x, t), 7, order_sampler=ShuffleOrderSampler(
        numpy.random.RandomState(42)))
    updater = training.updaters.StandardUpdater(it, opt)
    trainer = training.Trainer(updater, stop, out=str(out))
    trainer.extend(extensions.ExponentialShift('lr', 0.8),
                   trigger=(3, 'iteration'))
    trainer.extend(extensions.LogReport(trigger=(5, 'iteration')))
    if snapshot_trigger is not None or autoload:
        trainer.extend(extensions.snapshot(autoload=autoload),
                       trigger=snapshot_trigger or (1, 'epoch'))
    return trainer, model, opt


def _state(trainer, model, opt):
    state = {name: p.array.copy() for name, p in model.namedparams()}
    for name, p in model.namedparams():
        if p.update_rule.state is not None:    # None before the 1st update
            state[name + '/v'] = p.update_rule.state['v'].copy()
    state['lr'] = opt.lr
    state['t'] = opt.t
    state['iteration'] = trainer.updater.iteration
    state['epoch_detail'] = trainer.updater.epoch_detail
    return state


def _assert_same_state(a, b):
    assert a.keys() == b.keys()
    for key in a:
        numpy.testing.assert_array_equal(a[key], b[key], err_msg=key)


def _log_without_time(trainer):
    return [{k: v for k, v in e.items() if k != 'elapsed_time'}
            for e in trainer.get_extension('LogReport').log]


@pytest.mark.parametrize('k', [4, 11])
def test_resume_equals_uninterrupted(tmp_path, k):
    n = 23    # 30 examples in batches of 7: epochs end mid-batch
    full, model, opt = _build(tmp_path / 'full', (n, 'iteration'))
    full.run()
    expected = _state(full, model, opt)

    first, _, _ = _build(tmp_path / 'part', (k, 'iteration'),
                         snapshot_trigger=(k, 'iteration'))
    first.run()
    path = tmp_path / 'part' / 'snapshot_iter_{}'.format(k)
    assert path.is_file()

    resumed, model2, opt2 = _build(tmp_path / 'part', (n, 'iteration'),
                                   snapshot_trigger=(k, 'iteration'))
    load_npz(str(path), resumed)
    assert resumed.updater.iteration == k
    resumed.run()
    _assert_same_state(expected, _state(resumed, model2, opt2))
    assert _log_without_time(resumed) == _log_without_time(full)
    elapsed = [e['elapsed_time'] for e in
               resumed.get_extension('LogReport').log]
    assert elapsed == sorted(elapsed)


def test_autoload_resumes_from_the_latest_snapshot(tmp_path):
    n, k = 20, 9
    full, model, opt = _build(tmp_path / 'full', (n, 'iteration'))
    full.run()

    first, _, _ = _build(tmp_path / 'out', (k, 'iteration'),
                         snapshot_trigger=(3, 'iteration'), autoload=True)
    first.run()      # nothing to load yet: starts from scratch
    assert sorted(os.listdir(tmp_path / 'out')) == [
        'log', 'snapshot_iter_3', 'snapshot_iter_6', 'snapshot_iter_9']

    resumed, model2, opt2 = _build(tmp_path / 'out', (n, 'iteration'),
                                   snapshot_trigger=(3, 'iteration'),
                                   autoload=True)
    resumed.run()
    _assert_same_state(_state(full, model, opt),
                       _state(resumed, model2, opt2))


def test_snapshot_file_names_and_key_layout(tmp_path):
    trainer, model, _ = _build(tmp_path, (2, 'epoch'),
                               snapshot_trigger=(1, 'epoch'))
    trainer.run()
    # 30 examples / batch 7: epoch 1 ends at iteration 5, epoch 2 at 9
    assert sorted(os.listdir(tmp_path)) == ['log', 'snapshot_iter_5',
                                            'snapshot_iter_9']
    with numpy.load(str(tmp_path / 'snapshot_iter_9'),
                    allow_pickle=True) as f:
        keys = set(f.files)
        numpy.testing.assert_array_equal(
            f['updater/model:main/predictor/W'], model.predictor.W.array)
        assert int(f['updater/iteration']) == 9
    assert {
        'updater/iteration',
        'updater/model:main/predictor/W', 'updater/model:main/predictor/b',
        'updater/optimizer:main/t', 'updater/optimizer:main/epoch',
        'updater/optimizer:main/predictor/W/v',
        'updater/iterator:main/current_position',
        'updater/iterator:main/epoch', 'updater/iterator:main/order',
        'updater/iterator:main/is_new_epoch',
        'stop_trigger/previous_iteration',
        'stop_trigger/previous_epoch_detail',
        'extensions/ExponentialShift/_t',
        'extensions/ExponentialShift/_last_value',
        'extensions/LogReport/_log',
        'extensions/LogReport/_trigger/previous_iteration',
        'extension_triggers/_Snapshot/previous_iteration',
        '_snapshot_elapsed_time',
    } <= keys
    assert not any(k.startswith('/') for k in keys)


def test_snapshot_object_and_custom_filename(tmp_path):
    trainer, model, _ = _build(tmp_path, (6, 'iteration'))
    trainer.extend(extensions.snapshot_object(
        model, 'model_{.updater.iteration}.npz'), trigger=(3, 'iteration'))
    trainer.extend(extensions.snapshot(
        filename=lambda t: 'custom_{}'.format(t.updater.iteration)),
        trigger=(6, 'iteration'))
    trainer.run()
    assert {'model_3.npz', 'model_6.npz', 'custom_6'} <= set(
        os.listdir(tmp_path))
    with numpy.load(str(tmp_path / 'model_6.npz')) as f:
        assert set(f.files) == {'predictor/W', 'predictor/b'}
    fresh = L.Classifier(L.Linear(3, 2))
    load_npz(str(tmp_path / 'model_6.npz'), fresh)
    numpy.testing.assert_array_equal(fresh.predictor.W.array,
                                     model.predictor.W.array)


def test_snapshot_is_a_copy_taken_at_call_time(tmp_path):
    trainer, model, _ = _build(tmp_path, (4, 'iteration'))
    ext = extensions.snapshot_object(model, 'm',
                                     writer=_DeferredWriter())
    trainer.extend(ext, trigger=(2, 'iteration'))
    trainer.run()
    at_2 = ext.writer.pending[0][2]['predictor/W']
    assert not numpy.array_equal(at_2, model.predictor.W.array)


class _DeferredWriter:
    def __init__(self):
        self.pending = []

    def __call__(self, filename, outdir, target):
        self.pending.append((filename, outdir, target))


def test_n_retains_condition_and_snapshot_on_error(tmp_path):
    trainer, _, _ = _build(tmp_path / 'a', (12, 'iteration'))
    trainer.extend(extensions.snapshot(n_retains=2),
                   trigger=(2, 'iteration'))
    trainer.run()
    assert sorted(f for f in os.listdir(tmp_path / 'a')
                  if f.startswith('snapshot')) == ['snapshot_iter_10',
                                                   'snapshot_iter_12']

    trainer, _, _ = _build(tmp_path / 'b', (4, 'iteration'))
    trainer.extend(extensions.snapshot(condition=lambda: False),
                   trigger=(1, 'iteration'))
    trainer.run()
    assert os.listdir(tmp_path / 'b') == ['log'] or \
        not any(f.startswith('snapshot') for f in os.listdir(tmp_path / 'b'))

    trainer, _, _ = _build(tmp_path / 'c', (10, 'iteration'))
    trainer.extend(extensions.snapshot(snapshot_on_error=True),
                   trigger=(100, 'iteration'))

    def fail(t):
        if t.updater.iteration == 3:
            raise RuntimeError('crash')

    trainer.extend(fail)
    with pytest.raises(RuntimeError, match='crash'):
        trainer.run(show_loop_exception_msg=False)
    assert os.listdir(tmp_path / 'c') == ['snapshot_iter_3']


def test_interrupted_save_leaves_no_file(tmp_path):
    def savefun(path, obj):
        with open(path, 'wb') as f:
            f.write(b'partial')
        raise OSError('disk full')

    trainer, _, _ = _build(tmp_path, (1, 'iteration'))
    trainer.extend(extensions.snapshot(savefun=savefun),
                   trigger=(1, 'iteration'))
    with pytest.raises(OSError, match='disk full'):
        trainer.run(show_loop_exception_msg=False)
    assert os.listdir(tmp_path) == []


def test_thread_writer(tmp_path):
    from cpuframe.training.extensions import snapshot_writers
    trainer, model, _ = _build(tmp_path, (4, 'iteration'))
    trainer.extend(extensions.snapshot(
        writer=snapshot_writers.ThreadWriter()), trigger=(2, 'iteration'))
    trainer.run()
    assert {'snapshot_iter_2', 'snapshot_iter_4'} <= set(
        os.listdir(tmp_path))
    resumed, model2, _ = _build(tmp_path, (4, 'iteration'))
    load_npz(str(tmp_path / 'snapshot_iter_4'), resumed)
    numpy.testing.assert_array_equal(model2.predictor.W.array,
                                     model.predictor.W.array)
    with pytest.raises(TypeError, match='together'):
        extensions.snapshot(savefun=lambda p, o: None,
                            writer=snapshot_writers.SimpleWriter())


@pytest.mark.parametrize('writer', ['SimpleWriter', 'ThreadWriter'])
@pytest.mark.parametrize('mask, mode', [(0o022, 0o644), (0o077, 0o600)])
def test_snapshot_file_mode_follows_the_umask(tmp_path, umask, mask, mode,
                                              writer):
    from cpuframe.training.extensions import snapshot_writers
    umask(mask)
    trainer, _, _ = _build(tmp_path, (2, 'iteration'))
    trainer.extend(extensions.snapshot(
        writer=getattr(snapshot_writers, writer)()), trigger=(2, 'iteration'))
    trainer.run()
    path = tmp_path / 'snapshot_iter_2'
    assert stat.S_IMODE(path.stat().st_mode) == mode
    assert os.listdir(tmp_path) == ['snapshot_iter_2']


def test_debris_of_a_killed_snapshot_is_removed_by_the_next(tmp_path,
                                                           dead_pid):
    from cpuframe import _atomic_write
    debris = tmp_path / '{}{}-0123abcd'.format(
        _atomic_write.temporary_prefix('snapshot_iter_1'), dead_pid)
    debris.write_bytes(b'partial')
    trainer, _, _ = _build(tmp_path, (2, 'iteration'))
    trainer.extend(extensions.snapshot(), trigger=(2, 'iteration'))
    trainer.run()
    assert os.listdir(tmp_path) == ['snapshot_iter_2']


@pytest.mark.parametrize('damage', ['garbage', 'truncated', 'mismatch'])
def test_bad_snapshot_raises_and_leaves_trainer_untouched(tmp_path, damage):
    src, _, _ = _build(tmp_path / 'src', (6, 'iteration'),
                       snapshot_trigger=(6, 'iteration'),
                       n_out=3 if damage == 'mismatch' else 2)
    src.run()
    good = (tmp_path / 'src' / 'snapshot_iter_6').read_bytes()
    out = tmp_path / 'out'
    os.makedirs(str(out))
    bad = out / 'snapshot_iter_6'
    if damage == 'garbage':
        bad.write_bytes(b'this is not an npz file')
    elif damage == 'truncated':
        bad.write_bytes(good[:len(good) // 2])
    else:
        bad.write_bytes(good)

    trainer, model, opt = _build(out, (10, 'iteration'),
                                 snapshot_trigger=(100, 'iteration'))
    trainer.run()       # 10 iterations: there is state to lose
    before = _state(trainer, model, opt)
    log_before = _log_without_time(trainer)
    with pytest.raises((ValueError, KeyError)) as info:
        load_npz(str(bad), trainer)
    message = str(info.value)
    assert 'snapshot_iter_6' in message or 'predictor/W' in message
    _assert_same_state(before, _state(trainer, model, opt))
    assert _log_without_time(trainer) == log_before

    # the same through autoload at the start of training
    trainer, model, opt = _build(out, (10, 'iteration'), autoload=True)
    before = _state(trainer, model, opt)
    with pytest.raises((ValueError, KeyError)):
        trainer.run(show_loop_exception_msg=False)
    _assert_same_state(before, _state(trainer, model, opt))
