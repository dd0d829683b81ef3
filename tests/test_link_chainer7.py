"""Link, ChainList and Parameter behaviour as in Chainer 7: the legacy
constructor, from_params, _device_id, ChainList item assignment,
copy(mode) sharing the parameters' array slots, NaN-filled gradients at
initialization and the DeprecationWarnings Chainer 7 gives (and does not
give)."""
import warnings

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
import cpuframe.links as L
from cpuframe import optimizers
from cpuframe.backends import intel64

DEVICES = ['@numpy', pytest.param('@intel64', marks=pytest.mark.skipif(
    not intel64.is_ideep_available(), reason='oneDNN is not built'))]


def _x(*shape, seed=0):
    return numpy.random.RandomState(seed).uniform(
        -1, 1, shape).astype(numpy.float32)


def _np(array):
    return numpy.asarray(array)


# -- the legacy constructor ---------------------------------------------------
def test_legacy_constructor_shapes_and_dtypes():
    with warnings.catch_warnings():
        warnings.simplefilter('error')    # Chainer 7 does not warn here
        link = cpuframe.Link(x=((2, 3), 'd'), y=2, z=None, w=((4,), 'f'),
                             v=(2, 2))
    assert sorted(n for n, _ in link.namedparams()) == \
        ['/v', '/w', '/x', '/y', '/z']
    assert link.x.shape == (2, 3) and link.x.dtype == numpy.float64
    assert link.y.shape == (2,) and link.y.dtype == numpy.float32
    assert link.w.dtype == numpy.float32
    assert link.v.shape == (2, 2) and link.v.dtype == numpy.float32
    # NaN-filled arrays and gradients, as add_param makes them.
    assert numpy.isnan(link.x.array).all() and numpy.isnan(link.x.grad).all()
    assert link.x.grad.dtype == numpy.float64
    assert link.z.array is None and link.z.grad is None
    link.z.initialize((3,))
    assert numpy.isnan(link.z.grad).all()


# -- from_params --------------------------------------------------------------
def test_linear_from_params():
    W, b = _x(4, 3), _x(4, seed=1)
    link = L.Linear.from_params(cpuframe.Variable(W), b)
    assert (link.in_size, link.out_size) == (3, 4)
    numpy.testing.assert_array_equal(link.W.array, W)
    numpy.testing.assert_array_equal(link.b.array, b)
    assert link.W.array is not W          # a copy, as Chainer's Constant
    assert L.Linear.from_params(W, b, nobias=True).b is None
    assert L.Linear.from_params(W).b.array.tolist() == [0, 0, 0, 0]
    with pytest.raises(ValueError, match='`out_size` does not match'):
        L.Linear.from_params(W, _x(3))


def test_convolution_from_params():
    W, b = _x(6, 2, 3, 1), _x(6, seed=1)
    conv = L.Convolution2D.from_params(W, b, stride=2, pad=1, groups=2)
    assert (conv.in_channels, conv.out_channels, conv.groups) == (4, 6, 2)
    assert conv.ksize == (3, 1) and conv.stride == (2, 2)
    numpy.testing.assert_array_equal(conv.W.array, W)
    x = _x(1, 4, 5, 5, seed=2)
    numpy.testing.assert_allclose(
        conv(x).array, F.convolution_2d(x, W, b, 2, 1, groups=2).array,
        rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match='`out_channels` does not match'):
        L.Convolution2D.from_params(W, _x(5))
    Wn = _x(2, 3, 2, 2, 2)
    nd = L.ConvolutionND.from_params(Wn, nobias=True, cover_all=True)
    assert nd.W.shape == Wn.shape and nd.b is None and nd.cover_all
    assert L.Convolution1D.from_params(_x(2, 3, 5)).W.shape == (2, 3, 5)
    assert L.Convolution3D.from_params(Wn).W.shape == Wn.shape


# -- _device_id ---------------------------------------------------------------
@pytest.mark.parametrize('device', DEVICES)
def test_device_id_is_deprecated_and_none_off_gpus(device):
    link = L.Linear(2, 3).to_device(device)
    with pytest.warns(DeprecationWarning, match='Link._device_id'):
        assert link._device_id is None


# -- ChainList item assignment -------------------------------------------------
def test_chainlist_item_assignment():
    a, b, c, d = (L.Linear(2, 2) for _ in range(4))
    cl = cpuframe.ChainList(a, b)
    cl[1] = c
    assert list(cl) == [a, c] and c.name == '1'
    assert [n for n, _ in cl.namedparams()] == \
        ['/0/W', '/0/b', '/1/W', '/1/b']
    assert all(p is q for p, q in zip(cl.params(),
                                      list(a.params()) + list(c.params())))
    cl[-2] = d
    assert list(cl) == [d, c] and d.name == '0'
    cl[0:1] = [a, b]
    assert list(cl) == [a, b, c] and [k.name for k in cl] == ['0', '1', '2']
    del cl[0]
    assert list(cl) == [b, c] and [k.name for k in cl] == ['0', '1']
    cl.insert(0, d)
    assert list(cl) == [d, b, c] and [k.name for k in cl] == ['0', '1', '2']
    with pytest.raises(TypeError, match='ChainList indices must be integers'):
        cl['x'] = a
    with pytest.raises(TypeError):
        cl[0] = 'not a link'
    # An optimizer set up afterwards sees the new child's parameters.
    opt = optimizers.SGD().setup(cl)
    assert all(p.update_rule is not None for p in d.params())
    assert opt.target is cl


@pytest.mark.parametrize('device', DEVICES)
def test_chainlist_item_assignment_follows_the_device(device):
    cl = cpuframe.ChainList(L.Linear(2, 2)).to_device(device)
    new = L.Linear(2, 2)
    cl[0] = new
    target = cpuframe.get_device(device)
    assert cpuframe.backend.get_device_from_array(new.W.array) == target


# -- copy ---------------------------------------------------------------------
@pytest.mark.parametrize('device', DEVICES)
def test_share_copy_shares_the_array_slot(device):
    link = L.Linear(None, 3).to_device(device)
    shared = link.copy()                       # mode='share'
    assert shared is not link and shared.W is not link.W
    assert shared.name is None
    # Lazy initialization in the copy is seen by the original ...
    shared(cpuframe.get_device(device).send(_x(2, 4)))
    assert link.W.array is shared.W.array and link.W.shape == (3, 4)
    # ... and an array assigned to either is the other's too.
    new = cpuframe.get_device(device).send(_x(3, 4, seed=5))
    link.W.array = new
    assert shared.W.array is new
    # Gradients are the copies' own.
    link.cleargrads()
    shared.W.grad = cpuframe.get_device(device).send(_x(3, 4, seed=6))
    assert link.W.grad is None


def test_share_copy_keeps_persistents_and_grads():
    bn = L.BatchNormalization(3)
    assert bn.copy('share').avg_mean is bn.avg_mean
    link = L.Linear(2, 3)
    F.sum(link(_x(1, 2))).backward()
    c = link.copy('share')
    assert c.W.grad is None and link.W.grad is not None
    assert c.W.update_rule is link.W.update_rule


def test_copy_and_init_modes_are_independent():
    link = L.Linear(None, 3)
    for mode in ('copy', 'init'):
        c = link.copy(mode)
        c(_x(2, 4))
        assert link.W.array is None and c.W.shape == (3, 4)
    link(_x(2, 4))
    link.cleargrads()
    link.W.grad = _x(3, 4, seed=1)
    c = link.copy('copy')
    numpy.testing.assert_array_equal(c.W.array, link.W.array)
    numpy.testing.assert_array_equal(c.W.grad, link.W.grad)
    c.W.array[...] = 0
    assert not (link.W.array == 0).all()
    i = link.copy('init')
    assert not numpy.array_equal(i.W.array, link.W.array)
    numpy.testing.assert_array_equal(i.b.array, link.b.array)
    with pytest.raises(ValueError, match="'mode' argument should be"):
        link.copy('deep')


def test_repeat_share_shares_the_parameters():
    seq = L.Linear(2, 2).repeat(3, mode='share')
    first = seq[0].W
    assert all(layer.W.array is first.array for layer in seq)


# -- NaN-filled gradients -------------------------------------------------------
@pytest.mark.parametrize('device', DEVICES)
def test_gradients_are_nan_filled_at_initialization(device):
    link = L.Linear(3, 2).to_device(device)
    for param in link.params():
        assert param.grad.shape == param.shape
        assert numpy.isnan(_np(param.grad)).all()
    lazy = L.Linear(None, 2).to_device(device)
    assert lazy.W.grad is None               # no array, no gradient
    lazy(cpuframe.get_device(device).send(_x(1, 3)))
    assert numpy.isnan(_np(lazy.W.grad)).all()
    target = cpuframe.get_device(device)
    assert cpuframe.backend.get_device_from_array(lazy.W.grad) == target
    # A parameter made from an array has no gradient.
    assert cpuframe.Parameter(_x(2)).grad is None


def test_cleargrad_or_zerograd_before_initialization():
    p = cpuframe.Parameter(cpuframe.initializers.Normal())
    p.cleargrad()
    p.initialize((2, 2))
    assert p.grad is None
    q = cpuframe.Parameter(cpuframe.initializers.Normal())
    with pytest.warns(DeprecationWarning):
        q.zerograd()
    q.initialize((2, 2))
    assert (q.grad == 0).all()


def test_backward_without_cleargrads_accumulates_into_nan():
    link = L.Linear(3, 2)
    F.sum(link(_x(4, 3))).backward()
    assert numpy.isnan(link.W.grad).all()      # the mistake shows
    link.cleargrads()
    F.sum(link(_x(4, 3))).backward()
    assert numpy.isfinite(link.W.grad).all()


@pytest.mark.parametrize('device', DEVICES)
def test_optimizer_update_with_lossfun_clears_the_nan_gradients(device):
    model = L.Classifier(L.Linear(3, 2)).to_device(device)
    opt = optimizers.SGD(lr=0.1).setup(model)
    send = cpuframe.get_device(device).send
    x = send(_x(4, 3))
    t = send(numpy.array([0, 1, 0, 1], numpy.int32))
    opt.update(model, x, t)
    for param in model.params():
        assert numpy.isfinite(_np(param.array)).all()
        assert numpy.isfinite(_np(param.grad)).all()


# -- DeprecationWarnings -------------------------------------------------------
def test_zerograds_warns():
    link = L.Linear(2, 2)
    with pytest.warns(DeprecationWarning, match='Link.zerograds is deprecated'):
        link.zerograds()
    assert all((p.grad == 0).all() for p in link.params())
    v = cpuframe.Variable(_x(2))
    with pytest.warns(DeprecationWarning,
                      match='Variable.zerograd is deprecated'):
        v.zerograd()
    assert (v.grad == 0).all()


@pytest.mark.parametrize('device', DEVICES)
def test_to_device_does_not_warn_and_the_named_moves_do(device):
    # Chainer 7 deprecates to_cpu/to_gpu/to_intel64 (DeprecationWarning)
    link = L.Linear(2, 2)
    with warnings.catch_warnings():
        warnings.simplefilter('error', DeprecationWarning)
        link.to_device(device)
        link.to_device('@numpy')
        link.cleargrads()
    if device == '@intel64':
        with pytest.warns(DeprecationWarning, match='to_intel64 is deprecated'):
            link.to_intel64()
    with pytest.warns(DeprecationWarning, match='to_cpu is deprecated'):
        link.to_cpu()


def test_count_params_warns_about_uninitialized_parameters():
    seq = cpuframe.Sequential(L.Linear(2, 3), L.Linear(None, 4))
    with pytest.warns(UserWarning, match="Parameter '/1/W' has not been "
                      'initialized'):
        assert seq.count_params() == 2 * 3 + 3 + 4
    seq(_x(1, 2))
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        assert seq.count_params() == 2 * 3 + 3 + 3 * 4 + 4


class _LegacyLink(cpuframe.Link):
    """Older code: moves an unregistered array in an overridden to_*."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.W = cpuframe.Parameter(_x(2, 2))
        self.extra = numpy.zeros(3, numpy.float32)
        self.calls = []

    def to_cpu(self):
        self.calls.append('to_cpu')
        super().to_cpu()
        self.extra = cpuframe.backend.cpu_device.send(self.extra)
        return self

    def to_intel64(self):
        self.calls.append('to_intel64')
        super().to_intel64()
        self.extra = cpuframe.get_device('@intel64').send(self.extra)
        return self


@pytest.mark.parametrize('device', DEVICES)
def test_overridden_to_methods_are_called_as_in_chainer7(device):
    legacy = _LegacyLink()
    chain = cpuframe.Chain(child=legacy)
    target = cpuframe.get_device(device)
    chain.to_device(device)
    expected = 'to_intel64' if device == '@intel64' else 'to_cpu'
    assert legacy.calls == [expected]
    for array in (legacy.extra, legacy.W.array):
        assert cpuframe.backend.get_device_from_array(array) == target
    assert legacy.device == target
    chain.to_cpu()
    assert legacy.calls == [expected, 'to_cpu']
    assert isinstance(legacy.extra, numpy.ndarray)
    # Called on the link itself, the override runs once (no recursion).
    legacy.calls.clear()
    legacy.to_cpu()
    assert legacy.calls == ['to_cpu']


def test_init_scope_before_link_init_is_a_runtime_error():
    class Forgetful(cpuframe.Link):
        def __init__(self):
            with self.init_scope():
                self.W = cpuframe.Parameter(_x(2))

    with pytest.raises(RuntimeError, match=r'Link.__init__\(\) has not been '
                       'called'):
        Forgetful()


def test_printable_specs_as_a_chainer_style_property():
    class Spec(cpuframe.Link):
        def __init__(self):
            super().__init__()
            self.size = 3

        @property
        def printable_specs(self):
            for spec in [('size', self.size), ('flag', True)]:
                yield spec

    assert str(Spec()) == 'Spec(size=3, flag=True)'
    assert repr(L.Linear(2, 3)) == 'Linear(in_size=2, out_size=3, nobias=False)'
    assert str(cpuframe.Sequential(Spec())).splitlines()[1].strip() == \
        '(0): Spec(size=3, flag=True),'
