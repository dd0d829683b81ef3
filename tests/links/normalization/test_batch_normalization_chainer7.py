"""L.BatchNormalization and F's BatchNormalization node as in Chainer 7:
a lazily initialized link moves between devices before its first call,
and ``impl_selector`` picks the per-call implementation
(GeneralBatchNormalizationImpl and subclasses, as ChainerMN plugs in)."""
import importlib

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
import cpuframe.links as L
from cpuframe import serializers
from cpuframe.backends import intel64

# The module (the package attribute of this name is the function).
bn_module = importlib.import_module(
    'cpuframe.functions.normalization.batch_normalization')

DEVICES = ['@numpy', pytest.param('@intel64', marks=pytest.mark.skipif(
    not intel64.is_ideep_available(), reason='oneDNN is not built'))]


def _x(*shape, seed=0):
    return numpy.random.RandomState(seed).normal(
        1.0, 2.0, shape).astype(numpy.float32)


def _on(device, array):
    return cpuframe.get_device(device).send(array)


_NEEDS_ONEDNN = pytest.mark.skipif(not intel64.is_ideep_available(),
                                   reason='oneDNN is not built')


@pytest.mark.parametrize('device,move', [
    ('@numpy', 'to_cpu'), ('@numpy', 'to_device'),
    pytest.param('@intel64', 'to_intel64', marks=_NEEDS_ONEDNN),
    pytest.param('@intel64', 'to_device', marks=_NEEDS_ONEDNN)])
def test_lazy_link_moves_before_its_first_call(device, move):
    bn = L.BatchNormalization()
    assert bn.avg_mean is None and bn.avg_var is None
    if move == 'to_device':
        bn.to_device(device)
    else:
        getattr(bn, move)()
    assert bn.avg_mean is None
    x = _x(6, 3, 2, 2)
    y = bn(_on(device, x))
    # Initialized at the first call, on the link's device.
    target = cpuframe.get_device(device)
    for array in (bn.avg_mean, bn.avg_var, bn.gamma.array, bn.beta.array):
        assert cpuframe.backend.get_device_from_array(array) == target
        assert array.shape == (3,)
    mean = x.mean(axis=(0, 2, 3))
    numpy.testing.assert_allclose(numpy.asarray(bn.avg_mean), 0.1 * mean,
                                  rtol=1e-5, atol=1e-6)
    expected = (x - mean[None, :, None, None]) / numpy.sqrt(
        x.var(axis=(0, 2, 3))[None, :, None, None] + 2e-5)
    numpy.testing.assert_allclose(numpy.asarray(y.array), expected,
                                  rtol=1e-4, atol=1e-4)
    # And back to the CPU afterwards.
    bn.to_cpu()
    assert isinstance(bn.avg_mean, numpy.ndarray)


def test_lazy_link_serializes_and_copies_before_its_first_call(tmp_path):
    bn = L.BatchNormalization(axis=0)
    path = str(tmp_path / 'bn.npz')
    serializers.save_npz(path, bn)
    other = L.BatchNormalization(axis=0)
    serializers.load_npz(path, other)
    assert other.avg_mean is None
    c = bn.copy('copy')
    assert c.avg_mean is None
    c(_x(4, 3))
    assert c.avg_mean.shape == (3,) and bn.avg_mean is None


class _CountingImpl(bn_module.GeneralBatchNormalizationImpl):
    """Scales the variance (so that its use shows) and records calls."""

    def __init__(self, log):
        self.log = log

    def get_mean_and_var(self, axis, gamma, x, xp, interm_dtype):
        self.log.append(('mean_var', axis))
        mean, var = super().get_mean_and_var(axis, gamma, x, xp,
                                             interm_dtype)
        return mean, var * 4

    def get_ggamma_and_gbeta(self, axis, gamma, gy, x_hat, xp):
        self.log.append(('ggamma_gbeta', axis))
        return super().get_ggamma_and_gbeta(axis, gamma, gy, x_hat, xp)


def test_general_impl_signatures():
    impl = bn_module.GeneralBatchNormalizationImpl()
    assert isinstance(impl, bn_module._BatchNormalizationImpl)
    x = _x(5, 2)
    gamma = numpy.ones(2, numpy.float32)
    beta = numpy.zeros(2, numpy.float32)
    rm, rv = numpy.zeros(2, numpy.float32), numpy.ones(2, numpy.float32)
    expander = (None, slice(None))
    y, y_layout, rm2, rv2, mean, var, inv_std, data = impl.forward(
        axis=(0,), gamma=gamma, x=x, x_layout=None, xp=numpy,
        expander=expander, beta=beta, eps=2e-5, decay=0.9,
        running_mean=rm, running_var=rv)
    assert y_layout is None and data is None and rm2 is rm and rv2 is rv
    numpy.testing.assert_allclose(mean, x.mean(axis=0), rtol=1e-6)
    numpy.testing.assert_allclose(var, x.var(axis=0), rtol=1e-5)
    numpy.testing.assert_allclose(rm, 0.1 * x.mean(axis=0), rtol=1e-5)
    numpy.testing.assert_allclose(rv, 0.9 + 0.1 * x.var(axis=0) * 5 / 4,
                                  rtol=1e-5)
    gy = _x(5, 2, seed=1)
    gx, gx_layout, ggamma, gbeta = impl.backward(
        (0,), gamma, gy, x, None, numpy, expander, mean, inv_std, 2e-5,
        None, None)
    assert gx_layout is None
    numpy.testing.assert_allclose(gbeta, gy.sum(axis=0), rtol=1e-5)
    xv = cpuframe.Variable(x)
    g = cpuframe.Variable(gamma)
    b = cpuframe.Variable(beta)
    F.sum(F.batch_normalization(xv, g, b) * gy).backward()
    numpy.testing.assert_allclose(gx, xv.grad, rtol=1e-4, atol=1e-5)
    numpy.testing.assert_allclose(ggamma, g.grad, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize('device', DEVICES)
def test_function_node_uses_the_selected_impl(device):
    log, seen = [], []

    def selector(batch_norm_func, inputs):
        seen.append((type(batch_norm_func).__name__, len(inputs),
                     batch_norm_func.key_axis))
        return _CountingImpl(log)

    x = _x(6, 3, 2, 2)
    gamma, beta = _x(3, seed=2), _x(3, seed=3)
    rm = _on(device, numpy.zeros(3, numpy.float32))
    rv = _on(device, numpy.ones(3, numpy.float32))
    func = bn_module.BatchNormalization(
        2e-5, rm, rv, 0.9, impl_selector=selector)
    xv = cpuframe.Variable(_on(device, x))
    gv = cpuframe.Variable(_on(device, gamma))
    bv = cpuframe.Variable(_on(device, beta))
    y, = func.apply((xv, gv, bv))
    assert seen == [('BatchNormalization', 3, (1,))]
    assert log == [('mean_var', (0, 2, 3))]
    # The impl's (quadrupled) variance is the one used.
    axes = (0, 2, 3)
    mean = x.mean(axis=axes)[None, :, None, None]
    var = 4 * x.var(axis=axes)[None, :, None, None]
    expected = gamma[None, :, None, None] * (x - mean) / numpy.sqrt(
        var + 2e-5) + beta[None, :, None, None]
    numpy.testing.assert_allclose(numpy.asarray(y.array), expected,
                                  rtol=1e-4, atol=1e-4)
    numpy.testing.assert_allclose(
        numpy.asarray(func.running_var),
        0.9 + 0.1 * 4 * x.var(axis=axes) * 24 / 23, rtol=1e-5)
    gy = _x(*y.shape, seed=4)
    y.grad = gy
    y.backward()     # clears y.grad, as Chainer 7 does
    assert log[-1] == ('ggamma_gbeta', (0, 2, 3))
    numpy.testing.assert_allclose(
        numpy.asarray(bv.grad), gy.sum(axis=axes), rtol=1e-4)


@pytest.mark.parametrize('device', DEVICES)
def test_link_passes_impl_selector_in_training_only(device):
    log = []
    bn = L.BatchNormalization(3, impl_selector=lambda f, inputs:
                              _CountingImpl(log))
    ref = L.BatchNormalization(3)
    bn.to_device(device)
    ref.to_device(device)
    x = _on(device, _x(8, 3))
    y, y_ref = bn(x), ref(x)
    assert log == [('mean_var', (0,))]
    # Quadrupled variance: half the deviation of the reference.
    numpy.testing.assert_allclose(numpy.asarray(y.array),
                                  numpy.asarray(y_ref.array) / 2,
                                  rtol=1e-3, atol=1e-4)
    # The running statistics are the link's, updated by the impl.
    numpy.testing.assert_allclose(numpy.asarray(bn.avg_mean),
                                  numpy.asarray(ref.avg_mean), rtol=1e-5)
    with cpuframe.using_config('train', False):
        bn(x)
    assert len(log) == 1


def test_default_selector_keeps_cpuframe_routes():
    func = bn_module.BatchNormalization()
    assert func._impl_selector is bn_module._impl_selector
    y, = func.apply((_x(4, 2), numpy.ones(2, numpy.float32),
                     numpy.zeros(2, numpy.float32)))
    assert func._impl is None


def test_selected_general_impl_gradients():
    from cpuframe import gradient_check
    rng = numpy.random.RandomState(0)
    x, gamma, beta = rng.randn(5, 3, 2), rng.randn(3), rng.randn(3)

    def f(x, gamma, beta):
        node = bn_module.BatchNormalization(
            impl_selector=lambda func, inputs:
            bn_module.GeneralBatchNormalizationImpl())
        return node.apply((x, gamma, beta))[0]

    gy = rng.randn(5, 3, 2)
    gradient_check.check_backward(f, (x, gamma, beta), gy)
    gradient_check.check_double_backward(
        f, (x, gamma, beta), gy,
        (rng.randn(5, 3, 2), rng.randn(3), rng.randn(3)))


@pytest.mark.parametrize('selected', [False, True])
def test_recomputation_leaves_the_statistics_alone(selected):
    kwargs = {'impl_selector': lambda f, inputs:
              bn_module.GeneralBatchNormalizationImpl()} if selected else {}
    bn = L.BatchNormalization(3, **kwargs)
    x = _x(4, 3)
    y = bn(x).array
    mean, var, n = bn.avg_mean.copy(), bn.avg_var.copy(), bn.N
    with cpuframe.using_config('in_recomputing', True):
        y2 = bn(x).array
        bn(x, finetune=True)
    numpy.testing.assert_allclose(y2, y, rtol=1e-5, atol=1e-6)
    numpy.testing.assert_array_equal(bn.avg_mean, mean)
    numpy.testing.assert_array_equal(bn.avg_var, var)
    assert bn.N == n
