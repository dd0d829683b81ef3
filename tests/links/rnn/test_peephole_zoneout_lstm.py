import numpy
import pytest

import cpuframe
import cpuframe.links as L
from cpuframe import gradient_check


def _sigmoid(z):
    return 1 / (1 + numpy.exp(-z))


def _split(z, size):
    z = z.reshape(z.shape[0], size, 4)
    return [z[:, :, g] for g in range(4)]


def _params(link):
    p = {name: param.array.astype(numpy.float64)
         for name, param in link.namedparams()}
    return p


def _peephole_step(p, x, c, h, size):
    z = x.dot(p['/upward/W'].T) + p['/upward/b']
    if h is not None:
        z = z + h.dot(p['/lateral/W'].T)
    a, i, f, o = _split(z, size)
    i = _sigmoid(i + c.dot(p['/peep_i/W'].T))
    f = _sigmoid(f + c.dot(p['/peep_f/W'].T))
    c = numpy.tanh(a) * i + f * c
    o = _sigmoid(o + c.dot(p['/peep_o/W'].T))
    return c, o * numpy.tanh(c)


def _randomize(link, seed, dtype=None):
    """Fill the parameters with uniform(-1, 1) draws (then cast to dtype)."""
    rng = numpy.random.RandomState(seed)
    for param in link.params():
        param.array[...] = rng.uniform(-1, 1, param.shape)
        if dtype is not None:
            param.array = param.array.astype(dtype)
    # The NaN-filled initial gradients (of the old dtype) go.
    link.cleargrads()


def _check_two_steps_backward(link, rng, noise_seed=None):
    """Check the gradients of two steps of ``link`` (3 to 2 units) from a
    zero state; returns the function checked, its inputs and ``gy``.

    ``noise_seed`` reseeds numpy.random before each evaluation, so that a
    random link (zoneout) draws the same flags every time.
    """
    xs = rng.uniform(-1, 1, (2, 4, 3))

    def f(x0, x1):
        if noise_seed is not None:
            numpy.random.seed(noise_seed)
        link.reset_state()
        link(x0)
        return link(x1)
    gy = rng.uniform(-1, 1, (4, 2))
    gradient_check.check_backward(f, (xs[0], xs[1]), gy)
    gradient_check.check_double_backward(
        f, (xs[0], xs[1]), gy, tuple(rng.uniform(-1, 1, (4, 3))
                                     for _ in range(2)))
    return f, xs, gy


class TestStatefulPeepholeLSTM:
    def test_children(self):
        link = L.StatefulPeepholeLSTM(3, 2)
        names = sorted(n for n, _ in link.namedparams())
        assert names == ['/lateral/W', '/peep_f/W', '/peep_i/W', '/peep_o/W',
                         '/upward/W', '/upward/b']
        assert link.upward.W.shape == (8, 3)
        assert link.peep_i.W.shape == (2, 2)
        assert (link.upward.b.array == 0).all()

    @pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
    def test_three_steps(self, dtype):
        link = L.StatefulPeepholeLSTM(3, 4)
        link.to_device('@numpy')
        _randomize(link, 0, dtype)
        p = _params(link)
        rng = numpy.random.RandomState(1)
        c = numpy.zeros((2, 4))
        h = None
        for _ in range(3):
            x = rng.uniform(-1, 1, (2, 3)).astype(dtype)
            y = link(x)
            c, h = _peephole_step(p, x.astype(numpy.float64), c, h, 4)
            assert y.dtype == dtype
            tol = 1e-5 if dtype == numpy.float32 else 1e-12
            numpy.testing.assert_allclose(y.array, h, rtol=tol, atol=tol)
            numpy.testing.assert_allclose(link.c.array, c, rtol=tol, atol=tol)
        link.reset_state()
        assert link.c is None and link.h is None

    def test_backward(self):
        link = L.StatefulPeepholeLSTM(3, 2)
        _randomize(link, 2, numpy.float64)
        f, xs, gy = _check_two_steps_backward(link,
                                              numpy.random.RandomState(3))
        # Every parameter receives a gradient through the two steps.
        link.cleargrads()
        y = f(xs[0], xs[1])
        y.grad = gy
        y.backward()
        for name, param in link.namedparams():
            assert param.grad is not None and abs(param.grad).sum() > 0, name

    def test_set_state_and_bad_state(self):
        link = L.StatefulPeepholeLSTM(3, 2)
        c = numpy.ones((1, 2), numpy.float32)
        link.set_state(c, c)
        assert link(numpy.zeros((1, 3), numpy.float32)).shape == (1, 2)
        with pytest.raises(ValueError, match='set_state'):
            link.set_state(numpy.ones((1, 3), numpy.float32), c)


class TestStatefulZoneoutLSTM:
    def test_children_and_ratios(self):
        link = L.StatefulZoneoutLSTM(3, 2, c_ratio=0.2, h_ratio=0.7)
        assert link.c_ratio == 0.2 and link.h_ratio == 0.7
        names = sorted(n for n, _ in link.namedparams())
        assert names == ['/lateral/W', '/upward/W', '/upward/b']
        with pytest.raises(ValueError, match='train'):
            L.StatefulZoneoutLSTM(3, 2, train=True)
        with pytest.raises(TypeError, match='unexpected'):
            L.StatefulZoneoutLSTM(3, 2, ratio=0.1)

    @pytest.mark.parametrize('train', [True, False])
    def test_three_steps(self, train):
        link = L.StatefulZoneoutLSTM(3, 4, c_ratio=0.3, h_ratio=0.6)
        _randomize(link, 4, numpy.float64)
        p = _params(link)
        rng = numpy.random.RandomState(5)
        c = numpy.zeros((5, 4))
        h = numpy.zeros((5, 4))
        numpy.random.seed(9)
        noise = numpy.random.RandomState()
        noise.seed(9)
        for step in range(3):
            x = rng.uniform(-1, 1, (5, 3))
            with cpuframe.using_config('train', train):
                y = link(x)
            z = x.dot(p['/upward/W'].T) + p['/upward/b']
            if step > 0:
                z = z + h.dot(p['/lateral/W'].T)
            a, i, f, o = _split(z, 4)
            c_new = numpy.tanh(a) * _sigmoid(i) + _sigmoid(f) * c
            h_new = _sigmoid(o) * numpy.tanh(c_new)
            if train:
                keep_c = noise.random_sample(c.shape) >= 0.3
                keep_h = noise.random_sample(h.shape) >= 0.6
                c = numpy.where(keep_c, c_new, c)
                h = numpy.where(keep_h, h_new, h)
            else:
                c, h = c_new, h_new
            numpy.testing.assert_allclose(y.array, h, rtol=1e-12, atol=1e-12)
            numpy.testing.assert_allclose(link.c.array, c, rtol=1e-12,
                                          atol=1e-12)

    def test_backward(self):
        link = L.StatefulZoneoutLSTM(3, 2, c_ratio=0.4, h_ratio=0.4)
        _randomize(link, 6, numpy.float64)
        _check_two_steps_backward(link, numpy.random.RandomState(7),
                                  noise_seed=8)
