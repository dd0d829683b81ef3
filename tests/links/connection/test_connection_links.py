"""Parameter shapes, initialization, laziness, forward, copy and
serialization of the connection links."""
import numpy
import pytest

import cpuframe.functions as F
import cpuframe.links as L
from cpuframe import gradient_check, initializers, serializers


def _x(*shape, seed=0):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(numpy.float32)


def _roundtrip(link, fresh, tmp_path):
    path = tmp_path / 'link.npz'
    serializers.save_npz(path, link)
    serializers.load_npz(path, fresh)
    for (n1, p1), (n2, p2) in zip(link.namedparams(), fresh.namedparams()):
        assert n1 == n2
        numpy.testing.assert_array_equal(p1.array, p2.array)


def _check_copy(link, x):
    c = link.copy('copy')
    numpy.testing.assert_allclose(c(x).array, link(x).array, rtol=1e-6)
    for p in c.params():
        p.array[...] = 0
    assert any(float(abs(p.array).sum()) > 0 for p in link.params())


class TestLinear:
    def test_shapes_defaults_forward(self):
        numpy.random.seed(0)
        link = L.Linear(4, 3)
        assert link.W.shape == (3, 4) and link.b.shape == (3,)
        assert (link.b.array == 0).all()
        # LeCunNormal: std sqrt(1 / in_size)
        big = L.Linear(400, 300)
        assert abs(float(big.W.array.std()) - numpy.sqrt(1 / 400)) < 0.005
        x = _x(2, 4)
        numpy.testing.assert_allclose(
            link(x).array, x @ link.W.array.T + link.b.array, rtol=1e-5)

    @pytest.mark.parametrize('args', [(None, 3), (3,)])
    def test_lazy(self, args):
        link = L.Linear(*args)
        assert link.W.array is None
        y = link(_x(2, 5, 2))
        assert link.W.shape == (3, 10) and y.shape == (2, 3)

    def test_nobias_and_initializers(self):
        link = L.Linear(2, 2, nobias=True, initialW=initializers.Constant(2.0))
        assert link.b is None
        numpy.testing.assert_array_equal(link.W.array, numpy.full((2, 2), 2))
        w = numpy.arange(6, dtype=numpy.float32).reshape(3, 2)
        link = L.Linear(2, 3, initialW=w, initial_bias=1.5)
        numpy.testing.assert_array_equal(link.W.array, w)
        numpy.testing.assert_array_equal(link.b.array, [1.5] * 3)

    def test_gradient(self):
        link = L.Linear(3, 2)
        for p in link.params():
            p.array = p.array.astype(numpy.float64)
        x = _x(4, 3).astype(numpy.float64)
        gradient_check.check_backward(link, x, _x(4, 2).astype(numpy.float64),
                                      params=(link.W, link.b))

    def test_copy_and_serialize(self, tmp_path):
        link = L.Linear(4, 3)
        _check_copy(link, _x(2, 4))
        _roundtrip(L.Linear(4, 3), L.Linear(None, 3), tmp_path)


class TestConvolutions:
    def test_convolution_2d(self, tmp_path):
        link = L.Convolution2D(3, 4, 3, stride=2, pad=1)
        assert link.W.shape == (4, 3, 3, 3) and link.b.shape == (4,)
        x = _x(2, 3, 7, 7)
        y = link(x)
        expected = F.convolution_2d(x, link.W, link.b, 2, 1)
        numpy.testing.assert_allclose(y.array, expected.array, rtol=1e-6)
        assert y.shape == (2, 4, 4, 4)
        _check_copy(link, x)
        _roundtrip(link, L.Convolution2D(None, 4, 3, stride=2, pad=1), tmp_path)

    def test_convolution_2d_short_form_lazy_and_groups(self):
        link = L.Convolution2D(6, 3)
        assert link.W.array is None
        link(_x(1, 4, 5, 5))
        assert link.W.shape == (6, 4, 3, 3)
        g = L.Convolution2D(4, 6, 3, groups=2, dilate=2, nobias=True)
        assert g.W.shape == (6, 2, 3, 3) and g.b is None
        assert g(_x(1, 4, 7, 7)).shape == (1, 6, 3, 3)
        with pytest.raises(ValueError, match='Convolution2D: out_channels'):
            L.Convolution2D(4, 5, 3, groups=2)

    def test_convolution_nd(self):
        link = L.ConvolutionND(3, 2, 3, 2)
        assert link.W.shape == (3, 2, 2, 2, 2)
        assert link(_x(1, 2, 4, 4, 4)).shape == (1, 3, 3, 3, 3)
        one = L.Convolution1D(2, 3, 3, pad=1)
        assert one(_x(2, 2, 6)).shape == (2, 3, 6)

    def test_deconvolution(self, tmp_path):
        link = L.Deconvolution2D(3, 2, 3, stride=2, pad=1)
        assert link.W.shape == (3, 2, 3, 3)
        x = _x(2, 3, 4, 4)
        y = link(x)
        expected = F.deconvolution_2d(x, link.W, link.b, 2, 1)
        numpy.testing.assert_allclose(y.array, expected.array, rtol=1e-6)
        assert y.shape == (2, 2, 7, 7)
        sized = L.Deconvolution2D(3, 2, 3, stride=2, pad=1, outsize=(8, 8))
        assert sized(x).shape == (2, 2, 8, 8)
        nd = L.DeconvolutionND(1, 3, 2, 3)
        assert nd(_x(1, 3, 5)).shape == (1, 2, 7)
        _roundtrip(link, L.Deconvolution2D(None, 2, 3, stride=2, pad=1), tmp_path)

    def test_dilated_and_depthwise(self):
        d = L.DilatedConvolution2D(2, 3, 3, pad=2, dilate=2)
        assert d(_x(1, 2, 5, 5)).shape == (1, 3, 5, 5)
        dw = L.DepthwiseConvolution2D(3, 2, 3)
        assert dw.W.shape == (2, 3, 3, 3) and dw.b.shape == (6,)
        assert dw(_x(1, 3, 5, 5)).shape == (1, 6, 3, 3)
        lazy = L.DepthwiseConvolution2D(None, 2, 3)
        assert lazy(_x(1, 4, 5, 5)).shape == (1, 8, 3, 3)


class TestEmbedAndBilinear:
    def test_embed_id(self, tmp_path):
        numpy.random.seed(0)
        link = L.EmbedID(5, 3, ignore_label=-1)
        assert link.W.shape == (5, 3)
        ids = numpy.array([0, 4, -1], numpy.int32)
        y = link(ids).array
        numpy.testing.assert_array_equal(y[:2], link.W.array[[0, 4]])
        numpy.testing.assert_array_equal(y[2], 0)
        _roundtrip(link, L.EmbedID(5, 3), tmp_path)

    def test_bilinear(self):
        link = L.Bilinear(2, 3, 4)
        assert link.W.shape == (2, 3, 4) and link.V1.shape == (2, 4)
        e1, e2 = _x(5, 2), _x(5, 3, seed=1)
        y = link(e1, e2).array
        expected = numpy.einsum('bi,bj,ijk->bk', e1, e2, link.W.array) + \
            e1 @ link.V1.array + e2 @ link.V2.array + link.b.array
        numpy.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-6)
        nb = L.Bilinear(2, 3, 4, nobias=True)
        assert [n for n, _ in nb.namedparams()] == ['/W']
