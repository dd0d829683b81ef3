"""L.DeformableConvolution2D and its DeformableConvolution2DSampler."""
import numpy
import pytest

import cpuframe
import cpuframe.functions as F
import cpuframe.links as L
from cpuframe import gradient_check, serializers
from cpuframe.links.connection.deformable_convolution_2d import (
    DeformableConvolution2D,
    DeformableConvolution2DSampler,
)


def _x(shape=(2, 3, 5, 6), seed=0, dtype=numpy.float32):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def test_parameters_and_defaults():
    layer = L.DeformableConvolution2D(3, 4, (3, 2), stride=2, pad=1)
    assert L.DeformableConvolution2D is DeformableConvolution2D
    shapes = {n: p.shape for n, p in layer.namedparams()}
    assert shapes == {'/offset_conv/W': (12, 3, 3, 2),
                      '/offset_conv/b': (12,),
                      '/deform_conv/W': (4, 3, 3, 2), '/deform_conv/b': (4,)}
    # Chainer's defaults: the deforming filter starts at zero
    assert (layer.deform_conv.W.array == 0).all()
    assert (layer.deform_conv.b.array == 0).all()
    assert layer.offset_conv.W.array.std() > 0
    assert layer.offset_conv.stride == (2, 2) and layer.deform_conv.pad == (1, 1)
    plain = L.DeformableConvolution2D(3, 4, 3, offset_nobias=True,
                                      deform_nobias=True)
    assert plain.offset_conv.b is None and plain.deform_conv.b is None


def test_forward_is_the_function_with_the_predicted_offsets():
    layer = L.DeformableConvolution2D(3, 4, 3, stride=(1, 2), pad=1,
                                      deform_initialW=0.1,
                                      deform_initial_bias=0.5)
    x = _x()
    y = layer(x)
    offset = F.convolution_2d(x, layer.offset_conv.W, layer.offset_conv.b,
                              (1, 2), 1)
    expected = F.deformable_convolution_2d_sampler(
        x, offset, layer.deform_conv.W, layer.deform_conv.b, (1, 2), 1)
    assert y.shape == (2, 4, 5, 3)
    numpy.testing.assert_allclose(y.array, expected.array, rtol=1e-6)


def test_zero_offset_weights_give_a_plain_convolution():
    rng = numpy.random.RandomState(1)
    W = rng.randn(4, 3, 3, 3).astype(numpy.float32)
    layer = L.DeformableConvolution2D(3, 4, 3, pad=1, offset_initialW=0,
                                      deform_initialW=W)
    x = _x()
    numpy.testing.assert_allclose(layer(x).array,
                                  F.convolution_2d(x, W, None, 1, 1).array,
                                  rtol=1e-5, atol=1e-6)


def test_lazy_in_channels():
    layer = L.DeformableConvolution2D(None, 2, 3)
    assert layer.deform_conv.W.array is None
    y = layer(_x((1, 5, 4, 4)))
    assert y.shape == (1, 2, 2, 2)
    assert layer.deform_conv.W.shape == (2, 5, 3, 3)
    assert layer.offset_conv.W.shape == (18, 5, 3, 3)


def test_sampler_link():
    link = DeformableConvolution2DSampler(3, 2, 2, initialW=0.5,
                                          initial_bias=1.0)
    x = _x((1, 3, 3, 3))
    offset = _x((1, 8, 2, 2), seed=2)
    expected = F.deformable_convolution_2d_sampler(
        x, offset, numpy.full((2, 3, 2, 2), 0.5, numpy.float32),
        numpy.ones(2, numpy.float32))
    numpy.testing.assert_allclose(link(x, offset).array, expected.array,
                                  rtol=1e-6)


def test_gradients_of_all_parameters():
    with cpuframe.using_config('dtype', numpy.float64):
        layer = L.DeformableConvolution2D(2, 2, 2, offset_initialW=0.05,
                                          offset_initial_bias=0.3,
                                          deform_initialW=0.2)
    rng = numpy.random.RandomState(3)
    for p in layer.params():
        p.array[...] += rng.uniform(-0.1, 0.1, p.shape)
    x = _x((1, 2, 3, 3), dtype=numpy.float64)
    gy = _x((1, 2, 2, 2), seed=4, dtype=numpy.float64)
    gradient_check.check_backward(layer, (x,), gy,
                                  params=tuple(layer.params()), eps=1e-4,
                                  atol=1e-6, rtol=1e-5)


def test_learns_a_shift():
    # targets are the input read one pixel to the right: with a 1x1 filter
    # the offsets must learn the shift (bias of the offset conv)
    rng = numpy.random.RandomState(0)
    layer = L.DeformableConvolution2D(1, 1, 1, offset_initialW=0,
                                      offset_initial_bias=0.3,
                                      deform_initialW=1,
                                      deform_initial_bias=0)
    opt = cpuframe.optimizers.Adam(0.02)
    opt.setup(layer)
    layer.offset_conv.W.update_rule.enabled = False
    layer.deform_conv.disable_update()
    for _ in range(150):
        x = rng.randn(8, 1, 6, 6).astype(numpy.float32)
        t = numpy.zeros_like(x)
        t[..., :-1] = x[..., 1:]
        loss = F.mean_squared_error(layer(x)[..., :-1], t[..., :-1])
        layer.cleargrads()
        loss.backward()
        opt.update()
    dx, dy = layer.offset_conv.b.array
    assert dx == pytest.approx(1.0, abs=0.05)
    assert dy == pytest.approx(0.0, abs=0.05)


def test_serialize(tmp_path):
    layer = L.DeformableConvolution2D(2, 3, 3)
    layer.deform_conv.W.array[...] = 2
    serializers.save_npz(tmp_path / 'dc.npz', layer)
    with numpy.load(tmp_path / 'dc.npz') as npz:
        assert sorted(npz.files) == ['deform_conv/W', 'deform_conv/b',
                                     'offset_conv/W', 'offset_conv/b']
    fresh = L.DeformableConvolution2D(2, 3, 3)
    serializers.load_npz(tmp_path / 'dc.npz', fresh)
    assert (fresh.deform_conv.W.array == 2).all()
