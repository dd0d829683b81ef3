import numpy
import pytest

from cpuframe import Variable, optimizers, training
from cpuframe import functions as F
from cpuframe import links as L
from cpuframe.backend import CpuDevice
from cpuframe.dataset import converter
from cpuframe.datasets import TupleDataset
from cpuframe.iterators import SerialIterator
from cpuframe.serializers import DictionarySerializer
from cpuframe.training.updaters import StandardUpdater


def _regression(n=6, batch=3, lr=0.1):
    rng = numpy.random.RandomState(1)
    x = rng.randn(n, 2).astype(numpy.float32)
    t = rng.randn(n, 1).astype(numpy.float32)
    W0 = numpy.array([[0.5, -0.25]], numpy.float32)
    b0 = numpy.array([0.1], numpy.float32)
    model = L.Linear(2, 1, initialW=W0.copy(), initial_bias=b0.copy())
    opt = optimizers.SGD(lr=lr).setup(model)
    it = SerialIterator(TupleDataset(x, t), batch, shuffle=False)
    return x, t, W0, b0, model, opt, it


def test_update_matches_hand_computed_sgd():
    x, t, W, b, model, opt, it = _regression()

    def loss_func(xb, tb):
        return F.mean_squared_error(model(xb), tb)

    updater = StandardUpdater(it, opt, loss_func=loss_func)
    lr = 0.1
    for step in range(4):
        start = (step * 3) % 6
        xb, tb = x[start:start + 3], t[start:start + 3]
        y = xb @ W.T + b
        gy = 2 * (y - tb) / y.size
        W = W - lr * gy.T @ xb
        b = b - lr * gy.sum(axis=0)
        updater.update()
        numpy.testing.assert_allclose(model.W.array, W, rtol=1e-5)
        numpy.testing.assert_allclose(model.b.array, b, rtol=1e-5)
    assert updater.iteration == 4
    assert opt.t == 4


def test_epoch_bookkeeping_and_auto_new_epoch():
    x, t, _, _, model, opt, it = _regression(n=6, batch=4)
    updater = StandardUpdater(it, opt, loss_func=lambda a, b_: F.sum(
        model(a)) * 0)
    assert opt.use_auto_new_epoch
    assert updater.epoch == 0 and updater.epoch_detail == 0
    assert updater.previous_epoch_detail is None
    updater.update()
    assert updater.epoch_detail == pytest.approx(4 / 6)
    assert not updater.is_new_epoch and opt.epoch == 0
    updater.update()
    assert updater.is_new_epoch and updater.epoch == 1 and opt.epoch == 1
    assert updater.previous_epoch_detail == pytest.approx(4 / 6)
    assert updater.epoch_detail == pytest.approx(8 / 6)

    _, _, _, _, model, opt, it = _regression(n=6, batch=3)
    updater = StandardUpdater(it, opt, auto_new_epoch=False,
                              loss_func=lambda a, b_: F.sum(model(a)) * 0)
    updater.update()
    updater.update()
    assert updater.is_new_epoch and opt.epoch == 0
    assert not opt.use_auto_new_epoch


def test_converter_device_and_dict_batches():
    calls = []

    @converter()
    def new_style(batch, device):
        calls.append(('new', device))
        xs = numpy.stack([b['x'] for b in batch])
        return {'x': xs}

    def old_style(batch, device=None):
        calls.append(('old', device))
        return numpy.stack([b['x'] for b in batch])

    data = [{'x': numpy.full(2, i, numpy.float32)} for i in range(4)]
    model = L.Linear(2, 1)
    seen = []

    def loss(x):
        seen.append(x.copy())
        return F.sum(model(x))

    opt = optimizers.SGD().setup(model)
    updater = StandardUpdater(SerialIterator(data, 2, shuffle=False), opt,
                              converter=new_style, device='@numpy',
                              loss_func=lambda x: loss(x))
    updater.update()
    assert calls[-1][0] == 'new' and isinstance(calls[-1][1], CpuDevice)
    assert isinstance(updater.device, CpuDevice)
    assert updater.input_device is updater.device
    numpy.testing.assert_array_equal(seen[-1], [[0, 0], [1, 1]])

    updater = StandardUpdater(SerialIterator(data, 2, shuffle=False), opt,
                              converter=old_style, loss_func=loss)
    updater.update()
    assert calls[-1] == ('old', None)
    updater = StandardUpdater(SerialIterator(data, 2, shuffle=False), opt,
                              converter=old_style, loss_func=loss,
                              input_device=-1)
    updater.update()
    assert calls[-1] == ('old', -1) and updater.device is None


def test_default_loss_is_the_target():
    x, t, _, _, _, _, _ = _regression()
    model = L.Classifier(L.Linear(2, 2))
    opt = optimizers.SGD().setup(model)
    it = SerialIterator(TupleDataset(x, (t[:, 0] > 0).astype(numpy.int32)),
                        3, shuffle=False)
    updater = StandardUpdater(it, opt)
    updater.update()
    assert isinstance(model.loss, Variable)


def test_several_optimizers_and_subclassing():
    x, t, _, _, _, _, _ = _regression()
    gen, dis = L.Linear(2, 1), L.Linear(2, 1)
    opt_gen = optimizers.SGD(lr=0.0).setup(gen)
    opt_dis = optimizers.SGD(lr=0.1).setup(dis)

    class GANishUpdater(StandardUpdater):
        def update_core(self):
            batch = self.get_iterator('main').next()
            xb, tb = self.converter(batch, self.device)
            for name in ('gen', 'dis'):
                opt = self.get_optimizer(name)
                opt.update(lambda o=opt: F.mean_squared_error(
                    o.target(xb), tb))

    it = SerialIterator(TupleDataset(x, t), 3, shuffle=False)
    updater = GANishUpdater(it, {'gen': opt_gen, 'dis': opt_dis})
    gen_before = gen.W.array.copy()
    dis_before = dis.W.array.copy()
    updater.update()
    assert updater.iteration == 1
    numpy.testing.assert_array_equal(gen.W.array, gen_before)
    assert not numpy.array_equal(dis.W.array, dis_before)
    optimizers_ = updater.get_all_optimizers()
    assert optimizers_ == {'gen': opt_gen, 'dis': opt_dis}
    optimizers_.clear()
    assert len(updater.get_all_optimizers()) == 2

    s = DictionarySerializer()
    s.save(updater)
    keys = set(s.target)
    assert 'updater' not in keys and 'iteration' in keys
    assert {'model:gen/W', 'model:dis/b', 'optimizer:gen/t',
            'optimizer:dis/epoch', 'iterator:main/current_position'} <= keys


def test_serialize_roundtrip_restores_state():
    from cpuframe.serializers import NpzDeserializer
    _, _, _, _, model, opt, it = _regression()
    updater = StandardUpdater(it, opt,
                              loss_func=lambda a, b: F.mean_squared_error(
                                  model(a), b))
    for _ in range(3):
        updater.update()
    s = DictionarySerializer()
    s.save(updater)

    _, _, _, _, model2, opt2, it2 = _regression()
    updater2 = StandardUpdater(it2, opt2,
                               loss_func=lambda a, b: F.mean_squared_error(
                                   model2(a), b))
    NpzDeserializer(s.target).load(updater2)
    assert updater2.iteration == 3 and opt2.t == 3
    assert updater2.epoch_detail == updater.epoch_detail
    numpy.testing.assert_array_equal(model2.W.array, model.W.array)


def test_bad_arguments():
    model = L.Linear(2, 1)
    with pytest.raises(ValueError, match='setup'):
        StandardUpdater(SerialIterator([1], 1), optimizers.SGD())
    with pytest.raises(ValueError, match='device'):
        StandardUpdater(SerialIterator([1], 1),
                        optimizers.SGD().setup(model), device='@nothing')


def test_exported_names():
    assert training.StandardUpdater is StandardUpdater
    assert training.updater.StandardUpdater is StandardUpdater
    assert issubclass(StandardUpdater, training.Updater)
    with pytest.raises(NotImplementedError, match='update'):
        training.Updater().update()
