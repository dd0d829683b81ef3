"""NegativeSampling, BinaryHierarchicalSoftmax, Deconvolution1D/3D links."""
import collections

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
import cpuframe.links as L
from cpuframe import serializers
from cpuframe.functions.loss.hierarchical_softmax import TreeParser


class TestNegativeSampling:
    def test_params_and_sampler(self):
        counts = [1, 16, 0, 81]
        link = L.NegativeSampling(3, counts, 2, power=0.5)
        assert link.W.shape == (4, 3) and link.W.dtype == numpy.float32
        assert (link.W.array == 0).all()
        assert link.sample_size == 2
        numpy.random.seed(0)
        s = link.sampler.sample((100000,))
        freq = numpy.bincount(s, minlength=4) / 1e5
        numpy.testing.assert_allclose(freq, [1 / 14, 4 / 14, 0, 9 / 14],
                                      atol=5e-3)

    def test_dtype(self):
        link = L.NegativeSampling(3, [1, 2], 1, dtype=numpy.float64)
        assert link.W.dtype == numpy.float64

    @pytest.mark.parametrize('reduce', ['sum', 'no'])
    def test_forward_matches_function(self, reduce):
        rng = numpy.random.RandomState(1)
        link = L.NegativeSampling(4, [3, 1, 2, 5, 1], 3)
        link.W.array[...] = rng.randn(5, 4)
        x = rng.randn(6, 4).astype(numpy.float32)
        t = rng.randint(0, 5, 6).astype(numpy.int32)
        numpy.random.seed(7)
        y, samples = link(x, t, reduce=reduce, return_samples=True)
        assert samples.shape == (6, 4)
        numpy.testing.assert_array_equal(samples[:, 0], t)
        expected = F.negative_sampling(x, t, link.W, lambda s: samples, 3,
                                       reduce=reduce)
        numpy.testing.assert_allclose(y.array, expected.array, rtol=1e-6)
        with pytest.raises(TypeError, match='unexpected keyword'):
            link(x, t, foo=1)

    def test_zero_weights_give_log2(self):
        link = L.NegativeSampling(3, [1, 1, 1], 4)
        y = link(numpy.ones((2, 3), numpy.float32),
                 numpy.array([0, 1], numpy.int32))
        numpy.testing.assert_allclose(y.array, 2 * 5 * numpy.log(2),
                                      rtol=1e-6)

    def test_serialize(self, tmp_path):
        link = L.NegativeSampling(3, [1, 2], 1)
        link.W.array[...] = 3
        serializers.save_npz(tmp_path / 'ns.npz', link)
        fresh = L.NegativeSampling(3, [1, 2], 1)
        serializers.load_npz(tmp_path / 'ns.npz', fresh)
        assert (fresh.W.array == 3).all()


class TestBinaryHierarchicalSoftmax:
    def test_params(self):
        numpy.random.seed(0)
        link = L.BinaryHierarchicalSoftmax(4, ((0, 1), (2, (3, 4))))
        assert link.W.shape == (4, 4) and link.W.dtype == numpy.float32
        assert (abs(link.W.array) <= 1).all() and link.W.array.std() > 0.2

    def test_forward_and_probabilities(self):
        rng = numpy.random.RandomState(1)
        tree = ((0, 1), (2, (3, 4)))
        link = L.BinaryHierarchicalSoftmax(3, tree, dtype=numpy.float64)
        x = rng.randn(1, 3)
        ps = [numpy.exp(-link(x, numpy.array([w], numpy.int32)).array)
              for w in range(5)]
        numpy.testing.assert_allclose(sum(ps), 1.0, rtol=1e-12)
        t = numpy.array([0, 4, 4], numpy.int32)
        x3 = rng.randn(3, 3)
        numpy.testing.assert_allclose(
            link(x3, t).array,
            F.binary_hierarchical_softmax(x3, t, link.W, tree).array)

    def test_trains(self):
        numpy.random.seed(2)
        link = L.BinaryHierarchicalSoftmax(2, ((0, 1), 2))
        opt = cpuframe.optimizers.SGD(0.5)
        opt.setup(link)
        x = numpy.eye(3, 2, dtype=numpy.float32) + 0.5
        t = numpy.array([0, 1, 2], numpy.int32)
        first = float(link(x, t).array)
        for _ in range(50):
            link.cleargrads()
            loss = link(x, t)
            loss.backward()
            opt.update()
        assert float(link(x, t).array) < first * 0.7

    def test_create_huffman_tree(self):
        counts = collections.Counter(
            {'a': 45, 'b': 13, 'c': 12, 'd': 16, 'e': 9, 'f': 5})
        tree = L.BinaryHierarchicalSoftmax.create_huffman_tree(counts)
        depth = {}

        def walk(node, d):
            if isinstance(node, tuple):
                walk(node[0], d + 1)
                walk(node[1], d + 1)
            else:
                depth[node] = d
        walk(tree, 0)
        # the textbook Huffman code lengths for these frequencies
        assert depth == {'a': 1, 'b': 3, 'c': 3, 'd': 3, 'e': 4, 'f': 4}
        ids = L.BinaryHierarchicalSoftmax.create_huffman_tree(
            {i: c for i, c in enumerate([5, 1, 1, 3])})
        assert TreeParser(ids).n_words == 4
        assert L.BinaryHierarchicalSoftmax.create_huffman_tree({7: 3}) == 7

    def test_create_huffman_tree_errors(self):
        with pytest.raises(ValueError, match='empty vocabulary'):
            L.BinaryHierarchicalSoftmax.create_huffman_tree({})
        with pytest.raises(TypeError, match='mapping'):
            L.BinaryHierarchicalSoftmax.create_huffman_tree([1, 2])


@pytest.mark.parametrize('cls, nd, ndcls', [
    (L.Deconvolution1D, 1, L.DeconvolutionND),
    (L.Deconvolution3D, 3, L.DeconvolutionND),
    (L.Convolution1D, 1, L.ConvolutionND),
    (L.Convolution3D, 3, L.ConvolutionND),
])
def test_fixed_ndim_conv_links(cls, nd, ndcls):
    kwargs = dict(stride=2, pad=1, initialW=initializers_normal(),
                  initial_bias=0.5)
    link = cls(2, 3, 3, **kwargs)
    ref = ndcls(nd, 2, 3, 3, **kwargs)
    ref.W.array[...] = link.W.array
    assert isinstance(link, ndcls)
    x = numpy.random.RandomState(0).randn(2, 2, *(4,) * nd).astype('f')
    numpy.testing.assert_allclose(link(x).array, ref(x).array, rtol=1e-6)
    lazy = cls(3, 3)   # Chainer's short form: in_channels inferred
    assert lazy(x).shape[1] == 3


def initializers_normal():
    from cpuframe import initializers
    return initializers.Normal(1.0)
