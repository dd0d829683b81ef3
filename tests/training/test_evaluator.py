import numpy
import pytest

from cpuframe import Variable, config, optimizers, reporter, training
from cpuframe import functions as F
from cpuframe import links as L
from cpuframe.datasets import TupleDataset
from cpuframe.iterators import SerialIterator
from cpuframe.training import extensions


def _model_and_data():
    rng = numpy.random.RandomState(3)
    x = rng.randn(10, 3).astype(numpy.float32)
    t = rng.randint(0, 2, size=10).astype(numpy.int32)
    W = rng.randn(2, 3).astype(numpy.float32)
    b = rng.randn(2).astype(numpy.float32)
    model = L.Classifier(L.Linear(3, 2, initialW=W, initial_bias=b))
    return x, t, W, b, model


def _hand_means(x, t, W, b, batch):
    losses, accs = [], []
    for start in range(0, len(x), batch):
        xb, tb = x[start:start + batch], t[start:start + batch]
        y = xb.astype(numpy.float64) @ W.T + b
        y = y - y.max(axis=1, keepdims=True)
        logp = y - numpy.log(numpy.exp(y).sum(axis=1, keepdims=True))
        losses.append(-logp[numpy.arange(len(tb)), tb].mean())
        accs.append((y.argmax(axis=1) == tb).mean())
    # Chainer's Evaluator averages the per-batch means
    return numpy.mean(losses), numpy.mean(accs)


def test_standalone_evaluation_matches_hand_computation():
    x, t, W, b, model = _model_and_data()
    it = SerialIterator(TupleDataset(x, t), 4, repeat=False, shuffle=False)
    evaluator = extensions.Evaluator(it, model)
    result = evaluator()
    loss, acc = _hand_means(x, t, W, b, 4)
    assert set(result) == {'main/loss', 'main/accuracy'}
    assert float(result['main/loss']) == pytest.approx(loss, rel=1e-5)
    assert float(result['main/accuracy']) == pytest.approx(acc, rel=1e-6)
    # a second call sweeps the dataset again (the iterator is reset)
    again = evaluator()
    assert float(again['main/loss']) == pytest.approx(loss, rel=1e-5)
    numpy.testing.assert_array_equal(model.predictor.W.array, W)


def test_evaluation_runs_in_test_mode_without_backprop():
    seen = []

    class Probe(L.Linear):
        def forward(self, x):
            y = super().forward(x)
            seen.append((config.train, config.enable_backprop,
                         y.creator is None))
            return y

    x, t, _, _, _ = _model_and_data()
    model = L.Classifier(Probe(3, 2))
    it = SerialIterator(TupleDataset(x, t), 5, repeat=False, shuffle=False)
    extensions.Evaluator(it, model)()
    assert seen == [(False, False, True)] * 2


def test_eval_hook_eval_func_and_converter():
    x, t, _, _, model = _model_and_data()
    it = SerialIterator(TupleDataset(x, t), 5, repeat=False, shuffle=False)
    hooks, funcs, converted = [], [], []

    def eval_func(xb, tb):
        funcs.append(len(xb))
        reporter.report({'n': float(len(xb))})

    def converter(batch, device):
        converted.append(device)
        return (numpy.stack([e[0] for e in batch]),
                numpy.array([e[1] for e in batch]))

    evaluator = extensions.Evaluator(it, {'main': model}, converter=converter,
                                     eval_hook=hooks.append,
                                     eval_func=eval_func)
    result = evaluator()
    assert hooks == [evaluator] and funcs == [5, 5]
    assert converted == [None, None]
    assert result == {'n': 5.0}
    assert evaluator.get_target('main') is model
    assert evaluator.get_iterator('main') is it
    assert evaluator.get_all_targets() == {'main': model}


def test_evaluator_as_trainer_extension(tmp_path):
    x, t, W, b, model = _model_and_data()
    model.predictor.disable_update()
    opt = optimizers.SGD(lr=0.0).setup(model)
    train_it = SerialIterator(TupleDataset(x, t), 5, shuffle=False)
    val_it = SerialIterator(TupleDataset(x, t), 4, repeat=False,
                            shuffle=False)
    trainer = training.Trainer(
        training.StandardUpdater(train_it, opt), (2, 'epoch'),
        out=str(tmp_path))
    evaluator = extensions.Evaluator(val_it, model)
    trainer.extend(evaluator)
    observed = []
    trainer.extend(lambda tr: observed.append(
        (tr.updater.iteration, dict(tr.observation))), name='probe')
    trainer.run()
    assert evaluator.name == 'validation'
    loss, acc = _hand_means(x, t, W, b, 4)
    at_epoch_end = [obs for it_, obs in observed if it_ % 2 == 0]
    assert len(at_epoch_end) == 2
    for obs in at_epoch_end:
        assert float(obs['validation/main/loss']) == pytest.approx(loss,
                                                                  rel=1e-5)
        assert float(obs['validation/main/accuracy']) == pytest.approx(acc)
    assert all('validation/main/loss' not in obs
               for it_, obs in observed if it_ % 2)


def test_evaluator_progress_bar(capsys):
    x, t, _, _, model = _model_and_data()
    it = SerialIterator(TupleDataset(x, t), 5, repeat=False, shuffle=False)
    extensions.Evaluator(it, model, progress_bar=True)()
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith('validation [#########################.')
    assert '50.00%' in lines[0] and '5 / 10 iterations' in lines[0]
    assert 'iters/sec. Estimated time to finish:' in lines[0]
    assert lines[1].startswith('validation [' + '#' * 50 + ']')
    assert '\033' not in capsys.readouterr().out


def test_bad_arguments_and_warnings():
    x, t, _, _, model = _model_and_data()
    with pytest.warns(UserWarning, match='repeat'):
        extensions.Evaluator(SerialIterator(TupleDataset(x, t), 5), model)
    it = SerialIterator(TupleDataset(x, t), 5, repeat=False)
    with pytest.raises(TypeError, match='Link or a dict'):
        extensions.Evaluator(it, lambda x: x)
    with pytest.raises(ValueError, match="target named 'main'"):
        extensions.Evaluator(it, {'other': model})()
    with pytest.raises(ValueError, match="iterator named 'main'"):
        extensions.Evaluator({'test': it}, model)()


def test_reported_variable_becomes_mean():
    it = SerialIterator([1.0, 2.0, 3.0, 4.0], 2, repeat=False, shuffle=False)
    evaluator = extensions.Evaluator(
        it, {}, converter=lambda b, d: numpy.array(b, numpy.float32),
        eval_func=lambda a: reporter.report({'s': F.sum(Variable(a))}))
    assert float(evaluator()['s']) == pytest.approx((3 + 7) / 2)
