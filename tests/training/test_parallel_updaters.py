"""ParallelUpdater (model copies in one process) and
MultiprocessParallelUpdater (CPU worker processes)."""
import faulthandler
import warnings

import numpy
import pytest

import cpuframe
from cpuframe import links as L
from cpuframe import optimizers, training
from cpuframe.backends import intel64
from cpuframe.datasets import TupleDataset
from cpuframe.iterators import SerialIterator
from cpuframe.training.updaters import (
    MultiprocessParallelUpdater,
    ParallelUpdater,
    StandardUpdater,
)
from cpuframe.training.updaters import multiprocess_parallel_updater as mpu

SECOND_DEVICE = '@intel64' if intel64.is_ideep_available() else '@numpy'


def _data(n=40, seed=0):
    rng = numpy.random.RandomState(seed)
    x = rng.randn(n, 4).astype(numpy.float32)
    t = (x[:, 0] - x[:, 2] > 0).astype(numpy.int32)
    return x, t


def _model(seed=3):
    rng = numpy.random.RandomState(seed)
    return L.Classifier(L.Linear(
        4, 2, initialW=rng.randn(2, 4).astype(numpy.float32) * 0.5,
        initial_bias=rng.randn(2).astype(numpy.float32) * 0.1))


def _assert_same_params(a, b, **tol):
    pa, pb = dict(a.namedparams()), dict(b.namedparams())
    assert sorted(pa) == sorted(pb)
    for name in pa:
        numpy.testing.assert_allclose(
            cpuframe.backend.get_device('@numpy').send(pa[name].array),
            cpuframe.backend.get_device('@numpy').send(pb[name].array),
            err_msg=name, **tol)


class TestParallelUpdater:
    def _pair(self, lr):
        x, t = _data()
        model = _model()
        opt = optimizers.SGD(lr).setup(model)
        it = SerialIterator(TupleDataset(x, t), 8, shuffle=False)
        return model, opt, it

    def test_two_devices_sum_the_gradients_of_the_halves(self):
        # each copy's loss is a mean over half the batch: the summed
        # gradient is twice the full batch's, so SGD(lr) here is
        # StandardUpdater's SGD(2 lr)
        model, opt, it = self._pair(0.1)
        updater = ParallelUpdater(it, opt, devices={'main': '@numpy',
                                                    'second': '@numpy'})
        ref_model, ref_opt, ref_it = self._pair(0.2)
        reference = StandardUpdater(ref_it, ref_opt)
        second = updater._models['second']
        assert second is not model
        for _ in range(3):
            updater.update()
            reference.update()
            _assert_same_params(model, ref_model, rtol=1e-5, atol=1e-6)
            _assert_same_params(second, model, rtol=0, atol=0)
        assert updater.iteration == 3 and opt.t == 3

    def test_each_copy_gets_every_nth_example(self):
        seen = {}

        class Recorder(cpuframe.Chain):
            def __init__(self, name):
                super().__init__()
                self.name = name
                with self.init_scope():
                    self.w = cpuframe.Parameter(numpy.zeros(1, numpy.float32))

            def forward(self, x):
                seen[self.name] = x.tolist()
                return cpuframe.functions.sum(self.w * x.sum())

        main, other = Recorder('main'), Recorder('other')
        opt = optimizers.SGD(1.0).setup(main)
        it = SerialIterator(numpy.arange(6, dtype=numpy.float32), 6,
                            shuffle=False)
        updater = ParallelUpdater(it, opt, models={'main': main,
                                                   'other': other})
        updater.update()
        assert seen == {'main': [0, 2, 4], 'other': [1, 3, 5]}
        # the gradient is summed: d/dw of w * (0+2+4) + w * (1+3+5)
        numpy.testing.assert_allclose(main.w.array, [-15.0])
        numpy.testing.assert_allclose(other.w.array, [-15.0])

    def test_intel64_copy_agrees(self):
        model, opt, it = self._pair(0.1)
        updater = ParallelUpdater(it, opt, devices={'main': '@numpy',
                                                    'second': SECOND_DEVICE})
        ref_model, ref_opt, ref_it = self._pair(0.2)
        reference = StandardUpdater(ref_it, ref_opt)
        for _ in range(2):
            updater.update()
            reference.update()
        _assert_same_params(model, ref_model, rtol=1e-4, atol=1e-5)

    def test_trainer_reaches_accuracy_and_reports_every_copy(self):
        model, opt, it = self._pair(0.5)
        updater = ParallelUpdater(it, opt, devices={'main': '@numpy',
                                                    'second': '@numpy'})
        trainer = training.Trainer(updater, (15, 'epoch'))
        seen = []
        trainer.extend(lambda tr: seen.append(sorted(tr.observation)),
                       trigger=(1, 'epoch'))
        trainer.run()
        assert 'second/accuracy' in seen[-1] and 'main/accuracy' in seen[-1]
        x, t = _data(200, seed=5)
        with cpuframe.using_config('train', False):
            acc = (model.predictor(x).array.argmax(axis=1) == t).mean()
        assert acc > 0.9

    def test_errors(self):
        model, opt, it = self._pair(0.1)
        with pytest.raises(ValueError, match='ParallelUpdater.*models or '
                                             'devices'):
            ParallelUpdater(it, opt)
        with pytest.raises(KeyError, match="ParallelUpdater.*'main'"):
            ParallelUpdater(it, opt, devices={'a': '@numpy'})
        with pytest.raises(ValueError, match="ParallelUpdater.*'main'"):
            ParallelUpdater(it, opt, models={'main': _model()})
        with pytest.raises(ValueError, match='ParallelUpdater.*devices for'):
            ParallelUpdater(it, opt, models={'main': model, 'b': _model()},
                            devices={'main': '@numpy'})
        tiny = SerialIterator(numpy.zeros((1, 4), numpy.float32), 1)
        updater = ParallelUpdater(tiny, opt, devices={'main': '@numpy',
                                                      'b': '@numpy'})
        with pytest.raises(ValueError, match='cannot be split over 2'):
            updater.update()

    def test_module_paths(self):
        from cpuframe.training import updater as updater_module
        assert training.ParallelUpdater is ParallelUpdater
        assert updater_module.ParallelUpdater is ParallelUpdater


class TestFlatHelpers:
    def test_gather_and_scatter_round_trip(self):
        model = L.Linear(3, 2)
        size, num = mpu.size_num_grads(model)
        assert (size, num) == (8, 2)
        flat = mpu.gather_params(model)
        # sorted by name: /W then /b
        numpy.testing.assert_array_equal(
            flat, numpy.concatenate([model.W.array.ravel(), model.b.array]))
        model.cleargrads()
        assert mpu.gather_grads(model).tolist() == [0.0] * 8  # no grads
        mpu.scatter_grads(model, numpy.arange(8, dtype=numpy.float32))
        numpy.testing.assert_array_equal(model.W.grad,
                                         numpy.arange(6).reshape(2, 3))
        numpy.testing.assert_array_equal(model.b.grad, [6, 7])
        mpu.scatter_params(model, numpy.ones(8, numpy.float32))
        assert (model.W.array == 1).all() and (model.b.array == 1).all()
        with pytest.raises(ValueError, match='scatter_params.*8 values'):
            mpu.scatter_params(model, numpy.ones(7, numpy.float32))


# Worker processes that hang must fail the test, not stall the run: the
# tests of MultiprocessParallelUpdater print every thread's stack and end
# the process after this many seconds (a test takes a few).
_DEADLINE = 300


class TestMultiprocessParallelUpdater:
    @pytest.fixture(autouse=True)
    def _deadline(self):
        faulthandler.dump_traceback_later(_DEADLINE, exit=True)
        try:
            yield
        finally:
            faulthandler.cancel_dump_traceback_later()

    def _setup(self, lr, devices, n_iterators=2, batch=5):
        x, t = _data()
        model = _model()
        opt = optimizers.SGD(lr).setup(model)
        parts = numpy.array_split(numpy.arange(len(x)), n_iterators)
        iterators = [SerialIterator(TupleDataset(x[p], t[p]), batch,
                                    shuffle=False) for p in parts]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            updater = MultiprocessParallelUpdater(iterators, opt,
                                                  devices=devices)
        return model, opt, updater, caught, (x, t, parts)

    def test_matches_standard_updater_on_the_joined_batch(self):
        model, opt, updater, caught, (x, t, parts) = self._setup(
            0.2, ['@numpy', '@numpy'])
        assert opt.lr == pytest.approx(0.1)
        assert any('optimizer.lr is changed to 0.1' in str(w.message)
                   for w in caught)
        # the reference sees each step's two batches joined
        joined = [(x[i], t[i]) for step in range(4)
                  for i in numpy.concatenate([p[step * 5:step * 5 + 5]
                                              for p in parts])]
        ref_model = _model()
        reference = StandardUpdater(
            SerialIterator(joined, 10, shuffle=False),
            optimizers.SGD(0.2).setup(ref_model))
        try:
            for _ in range(4):
                updater.update()
                reference.update()
                _assert_same_params(model, ref_model, rtol=1e-5, atol=1e-6)
            assert len(updater._workers) == 1
            assert updater._workers[0].is_alive()
            assert updater.epoch == 1 and updater.is_new_epoch
        finally:
            updater.finalize()
        assert not updater._workers

    def test_trainer_reaches_accuracy(self):
        model, opt, updater, _, _ = self._setup(
            1.0, ['@numpy', SECOND_DEVICE], n_iterators=2, batch=4)
        trainer = training.Trainer(updater, (10, 'epoch'))
        trainer.run()   # finalizes the updater: the worker is joined
        assert not updater._workers
        x, t = _data(200, seed=5)
        with cpuframe.using_config('train', False):
            acc = (model.predictor(x).array.argmax(axis=1) == t).mean()
        assert acc > 0.9

    def test_worker_error_reaches_the_main_process(self):
        x, t = _data(8)
        model = _model()
        opt = optimizers.SGD(0.1).setup(model)
        bad = TupleDataset(numpy.zeros((8, 3), numpy.float32), t)  # 3 != 4
        with pytest.warns(UserWarning):
            updater = MultiprocessParallelUpdater(
                [SerialIterator(TupleDataset(x, t), 4),
                 SerialIterator(bad, 4)], opt, devices={'main': '@numpy',
                                                         'w': '@numpy'})
        try:
            with pytest.raises(RuntimeError, match='(?s)worker 1.*Linear'):
                updater.update()
            assert not updater._workers
            with pytest.raises(RuntimeError, match='make a new updater'):
                updater.update()
        finally:
            updater.finalize()

    def test_single_device_runs_without_workers(self):
        model, opt, updater, _, _ = self._setup(0.2, ['@numpy'],
                                                n_iterators=1, batch=10)
        assert opt.lr == pytest.approx(0.2)
        updater.update()
        assert updater._workers == [] and opt.t == 1
        updater.finalize()

    def test_eps_is_scaled_for_adam(self):
        opt = optimizers.Adam().setup(_model())
        it = SerialIterator(TupleDataset(*_data()), 4)
        with pytest.warns(UserWarning, match='optimizer.eps is changed'):
            MultiprocessParallelUpdater([it, it, it], opt,
                                        devices=['@numpy'] * 3)
        assert opt.eps == pytest.approx(3e-8)

    def test_errors(self):
        opt = optimizers.SGD().setup(_model())
        x, t = _data()
        it = SerialIterator(TupleDataset(x, t), 4)
        short = SerialIterator(TupleDataset(x[:5], t[:5]), 4)
        with pytest.raises(ValueError, match='one iterator per device'):
            MultiprocessParallelUpdater([it], opt, devices=['@numpy'] * 2)
        with pytest.raises(ValueError, match='datasets of one length'):
            MultiprocessParallelUpdater([it, short], opt,
                                        devices=['@numpy'] * 2)
        with pytest.raises(ValueError, match='expected devices as a dict'):
            MultiprocessParallelUpdater([it], opt)
        with pytest.raises(KeyError, match="'main'"):
            MultiprocessParallelUpdater([it], opt, devices={'a': '@numpy'})

    def test_available(self):
        assert MultiprocessParallelUpdater.available() is True
