"""link_hooks.WeightStandardization."""
import numpy
import pytest

import cpuframe
import cpuframe.functions as F
import cpuframe.links as L
from cpuframe.link_hooks import WeightStandardization


def _standardized(w, eps=1e-5):
    flat = w.reshape(w.shape[0], -1)
    mean = flat.mean(axis=1, keepdims=True)
    var = flat.var(axis=1, keepdims=True)
    return ((flat - mean) / numpy.sqrt(var + eps)).reshape(w.shape)


def test_convolution_uses_the_standardized_weight():
    conv = L.Convolution2D(2, 3, 3, nobias=True)
    x = numpy.random.RandomState(0).randn(1, 2, 5, 5).astype(numpy.float32)
    w = conv.W.array.copy()
    conv.add_hook(WeightStandardization())
    y = conv(x)
    expected = F.convolution_2d(x, _standardized(w)).array
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-4, atol=1e-5)
    # The Parameter is back in place after the forward.
    assert isinstance(conv.W, cpuframe.Parameter)
    numpy.testing.assert_array_equal(conv.W.array, w)


def test_gradient_reaches_the_parameter():
    lin = L.Linear(4, 3)
    lin.add_hook(WeightStandardization(eps=1e-3))
    x = numpy.random.RandomState(1).randn(2, 4).astype(numpy.float32)
    lin.cleargrads()    # gradients start NaN-filled, as in Chainer
    F.sum(lin(x) ** 2).backward()
    assert lin.W.grad is not None and lin.W.grad.shape == (3, 4)
    # Standardization is invariant to a per-row shift: the gradient of
    # every row sums to zero.
    numpy.testing.assert_allclose(lin.W.grad.sum(axis=1), 0, atol=1e-4)


def test_lazy_weight_is_initialized_from_the_input():
    lin = L.Linear(None, 3)
    lin.add_hook(WeightStandardization())
    y = lin(numpy.ones((2, 5), numpy.float32))
    assert y.shape == (2, 3) and lin.W.shape == (3, 5)


def test_errors():
    hook = WeightStandardization(name='ws')
    assert hook.name == 'ws'
    with pytest.raises(NotImplementedError):
        with hook:
            pass
    with pytest.raises(ValueError, match="Weight 'V' does not exist"):
        L.Linear(2, 3).add_hook(WeightStandardization(weight_name='V'))


def test_spectral_normalization_helpers():
    from cpuframe.link_hooks import spectral_normalization as sn
    rs = numpy.random.RandomState(3)
    w = rs.randn(4, 3)
    v = sn.l2normalize(numpy, numpy.array([3.0, 4.0]), 0.0)
    numpy.testing.assert_allclose(v, [0.6, 0.8])
    u, v = sn.update_approximate_vectors(cpuframe.Variable(w), rs.randn(4),
                                         50, 1e-12)
    sigma = sn.calculate_max_singular_value(cpuframe.Variable(w), u, v)
    numpy.testing.assert_allclose(sigma.array,
                                  numpy.linalg.svd(w, compute_uv=False)[0],
                                  rtol=1e-6)
