import numpy
import pytest

import cpuframe
import cpuframe.functions as F
import cpuframe.links as L
from cpuframe import gradient_check


def _sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


def _lin(link, x):
    y = x.astype(numpy.float64) @ link.W.array.astype(numpy.float64).T
    if link.b is not None:
        y = y + link.b.array
    return y


def _rand(*shape, seed=0, dtype=numpy.float32):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _randomize(link, seed=1):
    rng = numpy.random.RandomState(seed)
    for p in link.params():
        p.array[...] = rng.uniform(-1, 1, p.shape).astype(p.dtype)


def _child_sum_ref(link, cs, hs, x):
    """Tai et al.'s equations, child by child, in float64."""
    n = link.state_size
    wx = _lin(link.W_x, x)
    h_sum = sum(h.astype(numpy.float64) for h in hs) if hs else 0
    pre = wx[:, :3 * n]
    if hs:
        pre = pre + _lin(link.W_h_aio, h_sum)
    a, i, o = numpy.tanh(pre[:, :n]), _sigmoid(pre[:, n:2 * n]), \
        _sigmoid(pre[:, 2 * n:])
    c = a * i
    for c_k, h_k in zip(cs, hs):
        f_k = _sigmoid(wx[:, 3 * n:] + _lin(link.W_h_f, h_k))
        c = c + f_k * c_k
    return c, o * numpy.tanh(c)


def _nary_ref(link, cs, hs, x):
    n = link.state_size
    z = _lin(link.W_x, x)
    for k, h in enumerate(hs, start=1):
        z = z + _lin(getattr(link, 'W_h{}'.format(k)), h)
    c = numpy.tanh(z[:, :n]) * _sigmoid(z[:, n:2 * n])
    for k, c_k in enumerate(cs):
        c = c + _sigmoid(z[:, (3 + k) * n:(4 + k) * n]) * c_k
    return c, _sigmoid(z[:, 2 * n:3 * n]) * numpy.tanh(c)


class TestChildSum:
    def test_parameters(self):
        link = L.ChildSumTreeLSTM(3, 4)
        shapes = {name: p.shape for name, p in link.namedparams()}
        assert shapes == {'/W_x/W': (16, 3), '/W_x/b': (16,),
                          '/W_h_aio/W': (12, 4), '/W_h_f/W': (4, 4)}
        assert link.in_size == 3 and link.state_size == 4

    @pytest.mark.parametrize('n_children', [0, 1, 2, 3])
    def test_forward_against_numpy(self, n_children):
        link = L.ChildSumTreeLSTM(3, 4)
        _randomize(link)
        cs = [_rand(5, 4, seed=10 + k) for k in range(n_children)]
        hs = [_rand(5, 4, seed=20 + k) for k in range(n_children)]
        x = _rand(5, 3, seed=2)
        c, h = link(*(cs + hs + [x]))
        c_ref, h_ref = _child_sum_ref(link, cs, hs, x)
        numpy.testing.assert_allclose(c.array, c_ref, rtol=1e-5, atol=1e-5)
        numpy.testing.assert_allclose(h.array, h_ref, rtol=1e-5, atol=1e-5)

    def test_order_of_children_does_not_matter(self):
        link = L.ChildSumTreeLSTM(3, 4)
        _randomize(link)
        c1, c2, h1, h2 = (_rand(2, 4, seed=s) for s in range(4))
        x = _rand(2, 3, seed=5)
        a = link(c1, c2, h1, h2, x)
        b = link(c2, c1, h2, h1, x)
        for u, v in zip(a, b):
            numpy.testing.assert_allclose(u.array, v.array, rtol=1e-6)

    def test_none_means_zeros(self):
        link = L.ChildSumTreeLSTM(3, 2)
        _randomize(link)
        c1, h1 = _rand(2, 2, seed=1), _rand(2, 2, seed=2)
        zero = numpy.zeros((2, 2), numpy.float32)
        zx = numpy.zeros((2, 3), numpy.float32)
        a = link(c1, None, h1, None, None)
        b = link(c1, zero, h1, zero, zx)
        for u, v in zip(a, b):
            numpy.testing.assert_array_equal(u.array, v.array)

    def test_all_none_is_an_error(self):
        with pytest.raises(ValueError, match='ChildSumTreeLSTM.*None'):
            L.ChildSumTreeLSTM(3, 2)(None, None, None)

    def test_even_number_of_arguments_is_an_error(self):
        z = numpy.zeros((1, 2), numpy.float32)
        with pytest.raises(ValueError, match='ChildSumTreeLSTM.*odd'):
            L.ChildSumTreeLSTM(3, 2)(z, z)

    def test_gradients(self):
        link = L.ChildSumTreeLSTM(3, 2)
        _randomize(link)
        for p in link.params():
            p.array = p.array.astype(numpy.float64)
        inputs = [_rand(3, 2, seed=s, dtype=numpy.float64) for s in range(4)]
        inputs.append(_rand(3, 3, seed=9, dtype=numpy.float64))
        gy = [_rand(3, 2, seed=s, dtype=numpy.float64) for s in (11, 12)]
        gradient_check.check_backward(
            link, inputs, gy, params=tuple(link.params()))


class TestNary:
    def test_parameters(self):
        link = L.NaryTreeLSTM(3, 4, n_ary=3)
        shapes = {name: p.shape for name, p in link.namedparams()}
        assert shapes == {'/W_x/W': (24, 3), '/W_x/b': (24,),
                          '/W_h1/W': (24, 4), '/W_h2/W': (24, 4),
                          '/W_h3/W': (24, 4)}
        assert link.n_ary == 3
        assert L.NaryTreeLSTM(3, 4).n_ary == 2

    @pytest.mark.parametrize('n_ary', [1, 2, 3])
    def test_forward_against_numpy(self, n_ary):
        link = L.NaryTreeLSTM(3, 4, n_ary=n_ary)
        _randomize(link)
        cs = [_rand(5, 4, seed=10 + k) for k in range(n_ary)]
        hs = [_rand(5, 4, seed=20 + k) for k in range(n_ary)]
        x = _rand(5, 3, seed=2)
        c, h = link(*(cs + hs + [x]))
        c_ref, h_ref = _nary_ref(link, cs, hs, x)
        numpy.testing.assert_allclose(c.array, c_ref, rtol=1e-5, atol=1e-5)
        numpy.testing.assert_allclose(h.array, h_ref, rtol=1e-5, atol=1e-5)

    def test_order_of_children_matters(self):
        link = L.NaryTreeLSTM(3, 4)
        _randomize(link)
        c1, c2, h1, h2 = (_rand(2, 4, seed=s) for s in range(4))
        x = _rand(2, 3, seed=5)
        a = link(c1, c2, h1, h2, x)[1].array
        b = link(c2, c1, h2, h1, x)[1].array
        assert not numpy.allclose(a, b)

    def test_none_means_zeros(self):
        link = L.NaryTreeLSTM(3, 2)
        _randomize(link)
        c1, h2 = _rand(2, 2, seed=1), _rand(2, 2, seed=2)
        zero = numpy.zeros((2, 2), numpy.float32)
        a = link(c1, None, None, h2, None)
        b = link(c1, zero, zero, h2, numpy.zeros((2, 3), numpy.float32))
        for u, v in zip(a, b):
            numpy.testing.assert_allclose(u.array, v.array, rtol=1e-6)

    def test_wrong_number_of_arguments_is_an_error(self):
        z = numpy.zeros((1, 2), numpy.float32)
        with pytest.raises(ValueError, match='NaryTreeLSTM.*5 arguments'):
            L.NaryTreeLSTM(3, 2)(z, z, z)

    @pytest.mark.parametrize('n_ary', [0, 1.5, True])
    def test_bad_n_ary_is_an_error(self, n_ary):
        with pytest.raises(ValueError, match='NaryTreeLSTM.*n_ary'):
            L.NaryTreeLSTM(3, 2, n_ary=n_ary)

    def test_gradients(self):
        link = L.NaryTreeLSTM(3, 2)
        _randomize(link)
        for p in link.params():
            p.array = p.array.astype(numpy.float64)
        inputs = [_rand(3, 2, seed=s, dtype=numpy.float64) for s in range(4)]
        inputs.append(_rand(3, 3, seed=9, dtype=numpy.float64))
        gy = [_rand(3, 2, seed=s, dtype=numpy.float64) for s in (11, 12)]
        gradient_check.check_backward(
            link, inputs, gy, params=tuple(link.params()))


def test_a_small_tree_trains():
    # ((leaf leaf) leaf): learn to output the sum sign of the leaves' inputs
    rng = numpy.random.RandomState(0)
    leaf = L.ChildSumTreeLSTM(1, 8)
    node = L.NaryTreeLSTM(1, 8, n_ary=2)
    out = L.Linear(8, 1)
    model = cpuframe.Chain()
    with model.init_scope():
        model.leaf, model.node, model.out = leaf, node, out
    opt = cpuframe.optimizers.Adam(0.05)
    opt.setup(model)

    def run(xs):
        states = [leaf(x[:, None]) for x in xs]
        zero = numpy.zeros((xs.shape[1], 1), numpy.float32)
        c, h = node(states[0][0], states[1][0], states[0][1], states[1][1],
                    zero)
        c, h = node(c, states[2][0], h, states[2][1], zero)
        return out(h)[:, 0]

    for _ in range(60):
        xs = rng.uniform(-1, 1, (3, 32)).astype(numpy.float32)
        t = (xs.sum(axis=0) > 0).astype(numpy.int32)
        loss = F.sigmoid_cross_entropy(run(xs), t)
        model.cleargrads()
        loss.backward()
        opt.update()
    xs = rng.uniform(-1, 1, (3, 200)).astype(numpy.float32)
    acc = ((run(xs).array > 0) == (xs.sum(axis=0) > 0)).mean()
    assert acc > 0.9
