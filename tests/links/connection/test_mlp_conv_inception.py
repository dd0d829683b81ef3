import numpy
import pytest

import cpuframe
import cpuframe.functions as F
import cpuframe.links as L
from cpuframe import gradient_check


def _rand(shape, seed=0, dtype=numpy.float64):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _conv(x, W, b, stride=1, pad=0):
    """Naive NumPy reference 2-D convolution (cross-correlation)."""
    n, c, h, w = x.shape
    oc, _, kh, kw = W.shape
    xp = numpy.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (h + 2 * pad - kh) // stride + 1
    ow = (w + 2 * pad - kw) // stride + 1
    y = numpy.zeros((n, oc, oh, ow), x.dtype)
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * stride:i * stride + kh,
                       j * stride:j * stride + kw]
            y[:, :, i, j] = numpy.einsum('nckl,ockl->no', patch, W)
    if b is not None:
        y += b[None, :, None, None]
    return y


def _maxpool3(x):
    n, c, h, w = x.shape
    xp = numpy.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)),
                   constant_values=-numpy.inf)
    y = numpy.full(x.shape, -numpy.inf, x.dtype)
    for di in range(3):
        for dj in range(3):
            y = numpy.maximum(y, xp[:, :, di:di + h, dj:dj + w])
    return y


def _relu(x):
    return numpy.maximum(x, 0)


def _to64(link):
    for p in link.params():
        p.array = p.array.astype(numpy.float64)


# -- MLPConvolution2D --------------------------------------------------------
def test_mlpconv_params():
    link = L.MLPConvolution2D(3, (4, 5, 2), 3, stride=2, pad=1)
    assert len(link) == 3
    assert [n for n, _ in link.namedparams()] == [
        '/0/W', '/0/b', '/1/W', '/1/b', '/2/W', '/2/b']
    assert link[0].W.shape == (4, 3, 3, 3)
    assert link[1].W.shape == (5, 4, 1, 1)
    assert link[2].W.shape == (2, 5, 1, 1)
    assert link[0].stride == (2, 2) and link[0].pad == (1, 1)
    assert link[1].stride == (1, 1) and link[1].pad == (0, 0)
    assert link.activation is F.relu


@pytest.mark.parametrize('stride,pad', [(1, 0), (2, 1)])
def test_mlpconv_forward(stride, pad):
    link = L.MLPConvolution2D(2, (3, 4), 3, stride=stride, pad=pad)
    x = _rand((2, 2, 5, 5), dtype=numpy.float32)
    h = _relu(_conv(x, link[0].W.array, link[0].b.array, stride, pad))
    expect = _conv(h, link[1].W.array, link[1].b.array)  # no final act
    numpy.testing.assert_allclose(link(x).array, expect, rtol=1e-4,
                                  atol=1e-5)


def test_mlpconv_lazy_in_channels_and_inits():
    link = L.MLPConvolution2D((3, 2), 1, activation=F.tanh, conv_init=0.5,
                              bias_init=0.25)
    assert link[0].W.array is None
    assert (link[1].W.array == 0.5).all() and (link[1].b.array == 0.25).all()
    x = _rand((1, 2, 3, 3), dtype=numpy.float32)
    y = link(x)
    assert link[0].W.shape == (3, 2, 1, 1)
    assert (link[0].W.array == 0.5).all()
    h = numpy.tanh(_conv(x, link[0].W.array, link[0].b.array))
    numpy.testing.assert_allclose(
        y.array, _conv(h, link[1].W.array, link[1].b.array), rtol=1e-5)


def test_mlpconv_gradient():
    link = L.MLPConvolution2D(2, (2, 2), 2, activation=F.tanh)
    _to64(link)
    x = _rand((1, 2, 3, 3))
    gradient_check.check_backward(link, x, _rand((1, 2, 2, 2), seed=1),
                                  params=tuple(link.params()),
                                  atol=1e-6, rtol=1e-5)


def test_mlpconv_bad_args():
    with pytest.raises(ValueError, match='MLPConvolution2D'):
        L.MLPConvolution2D(3, (), 3)
    with pytest.raises(TypeError, match='MLPConvolution2D'):
        L.MLPConvolution2D(3, 4, 3)


def test_mlpconv_bad_input():
    link = L.MLPConvolution2D(3, (2,), 1)
    with pytest.raises(TypeError, match='[Cc]onvolution'):
        link(_rand((1, 2, 3, 3), dtype=numpy.float32))


# -- Inception ---------------------------------------------------------------
def _inception_ref(link, x):
    def c(conv, h, pad=0):
        return _conv(h, conv.W.array, conv.b.array, 1, pad)
    out1 = c(link.conv1, x)
    out3 = c(link.conv3, _relu(c(link.proj3, x)), 1)
    out5 = c(link.conv5, _relu(c(link.proj5, x)), 2)
    pool = c(link.projp, _maxpool3(x))
    return _relu(numpy.concatenate((out1, out3, out5, pool), axis=1))


def test_inception_params():
    link = L.Inception(3, 2, 3, 4, 1, 2, 2)
    shapes = {n: p.shape for n, p in link.namedparams()}
    assert shapes == {
        '/conv1/W': (2, 3, 1, 1), '/conv1/b': (2,),
        '/proj3/W': (3, 3, 1, 1), '/proj3/b': (3,),
        '/conv3/W': (4, 3, 3, 3), '/conv3/b': (4,),
        '/proj5/W': (1, 3, 1, 1), '/proj5/b': (1,),
        '/conv5/W': (2, 1, 5, 5), '/conv5/b': (2,),
        '/projp/W': (2, 3, 1, 1), '/projp/b': (2,),
    }


def test_inception_forward():
    link = L.Inception(3, 2, 3, 4, 2, 2, 3, bias_init=0.1)
    assert (link.conv5.b.array == numpy.float32(0.1)).all()
    x = _rand((2, 3, 5, 4), dtype=numpy.float32)
    y = link(x)
    assert y.shape == (2, 2 + 4 + 2 + 3, 5, 4)
    numpy.testing.assert_allclose(y.array, _inception_ref(link, x),
                                  rtol=1e-4, atol=1e-5)


def test_inception_lazy_in_channels():
    link = L.Inception(None, 1, 1, 1, 1, 1, 1, conv_init=0.3)
    x = _rand((1, 2, 3, 3), dtype=numpy.float32)
    y = link(x)
    assert link.conv1.W.shape == (1, 2, 1, 1)
    assert (link.conv3.W.array == numpy.float32(0.3)).all()
    numpy.testing.assert_allclose(y.array, _inception_ref(link, x),
                                  rtol=1e-4, atol=1e-5)


def test_inception_gradient():
    link = L.Inception(2, 1, 1, 1, 1, 1, 1)
    _to64(link)
    # small weights and large biases keep every pre-relu value far from 0
    for i, (name, p) in enumerate(sorted(link.namedparams())):
        if name.endswith('/W'):
            p.array[...] = _rand(p.shape, seed=10 + i) * 0.02
        else:
            p.array[...] = 3.0
    # values 0.1 apart: no ties (or near-ties) inside any pooling window
    rng = numpy.random.RandomState(2)
    x = (rng.permutation(18).reshape(1, 2, 3, 3) * 0.1 - 0.9).astype(
        numpy.float64)
    gradient_check.check_backward(link, x, _rand((1, 4, 3, 3), seed=1),
                                  params=tuple(link.params()),
                                  atol=1e-6, rtol=1e-5)


def test_inception_grads_reach_every_param():
    numpy.random.seed(0)
    link = L.Inception(2, 2, 2, 2, 2, 2, 2, bias_init=1.0)
    x = cpuframe.Variable(_rand((2, 2, 4, 4), dtype=numpy.float32))
    link.cleargrads()  # gradients start NaN-filled, as in Chainer
    F.sum(link(x)).backward()
    for name, p in link.namedparams():
        assert p.grad is not None and numpy.abs(p.grad).sum() > 0, name


def test_inception_bad_input():
    link = L.Inception(3, 1, 1, 1, 1, 1, 1)
    with pytest.raises(ValueError, match='Inception'):
        link(_rand((3, 4, 4), dtype=numpy.float32))
    with pytest.raises(TypeError, match='[Cc]onvolution'):
        link(_rand((1, 2, 4, 4), dtype=numpy.float32))
