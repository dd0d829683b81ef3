import numpy
import pytest

import cpuframe.functions as F
import cpuframe.links as L
from cpuframe import initializers


def test_shapes_and_forward():
    link = L.LocalConvolution2D(3, 2, in_size=(5, 4), ksize=(2, 3), stride=1)
    assert link.W.shape == (2, 4, 2, 3, 2, 3)
    assert link.b.shape == (2, 4, 2)
    assert (link.b.array == 0).all()
    x = numpy.random.RandomState(0).uniform(-1, 1, (2, 3, 5, 4)).astype(
        numpy.float32)
    y = link(x)
    numpy.testing.assert_allclose(
        y.array, F.local_convolution_2d(x, link.W, link.b).array)
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert link.W.grad.shape == link.W.shape
    assert link.b.grad.shape == link.b.shape


def test_stride_lazy_init_and_nobias():
    link = L.LocalConvolution2D(None, 4, ksize=3, stride=2, nobias=True)
    assert link.W.array is None and link.b is None
    y = link(numpy.ones((1, 2, 7, 9), numpy.float32))
    assert link.W.shape == (4, 3, 4, 2, 3, 3)
    assert y.shape == (1, 4, 3, 4)
    assert [n for n, _ in link.namedparams()] == ['/W']


def test_initializers():
    link = L.LocalConvolution2D(1, 1, in_size=3, ksize=2,
                                initialW=initializers.Constant(2.0),
                                initial_bias=0.5)
    assert (link.W.array == 2).all() and (link.b.array == 0.5).all()
    y = link(numpy.ones((1, 1, 3, 3), numpy.float32))
    numpy.testing.assert_allclose(y.array, 8.5)


def test_bad_arguments():
    with pytest.raises(TypeError, match='ksize'):
        L.LocalConvolution2D(1, 1, in_size=3)
    with pytest.raises(ValueError, match='LocalConvolution2D'):
        L.LocalConvolution2D(1, 1, in_size=2, ksize=3)
