import numpy
import pytest

import cpuframe
import cpuframe.links as L
from cpuframe import gradient_check, serializers
from cpuframe.links.rnn.mgu import MGUBase, StatefulMGU, StatelessMGU

NAMES = ['/W_f/W', '/W_f/b', '/W_h/W', '/W_h/b']


def _sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


def _rand(*shape, seed=0, dtype=numpy.float32):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _randomize(link, seed=1):
    rng = numpy.random.RandomState(seed)
    for p in link.params():
        p.array[...] = rng.uniform(-1, 1, p.shape).astype(p.dtype)


def _ref_step(link, h, x):
    """Zhou et al.'s equations with the weights cut into state and input
    columns, in float64, unit by unit."""
    n = link.state_size
    Wf, bf = link.W_f.W.array.astype(numpy.float64), link.W_f.b.array
    Wh, bh = link.W_h.W.array.astype(numpy.float64), link.W_h.b.array
    h = h.astype(numpy.float64)
    x = x.astype(numpy.float64)
    out = numpy.empty_like(h)
    for b in range(h.shape[0]):
        f = numpy.array([_sigmoid(Wf[k, :n] @ h[b] + Wf[k, n:] @ x[b] + bf[k])
                         for k in range(n)])
        for k in range(n):
            h_bar = numpy.tanh(Wh[k, :n] @ (f * h[b]) + Wh[k, n:] @ x[b] +
                               bh[k])
            out[b, k] = f[k] * h_bar + (1 - f[k]) * h[b, k]
    return out


class TestParameters:
    @pytest.mark.parametrize('cls', [StatelessMGU, StatefulMGU])
    def test_names_and_shapes(self, cls):
        link = cls(3, 4)
        assert isinstance(link, MGUBase)
        assert [n for n, _ in link.namedparams()] == NAMES
        for name, p in link.namedparams():
            assert p.shape == ((4,) if name.endswith('/b') else (4, 7))
        assert link.state_size == 4

    def test_exported(self):
        assert L.StatefulMGU is StatefulMGU and L.StatelessMGU is StatelessMGU


class TestForward:
    @pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32,
                                       numpy.float64])
    def test_stateless_against_loops(self, dtype):
        with cpuframe.using_config('dtype', dtype):
            link = StatelessMGU(3, 4)
        _randomize(link)
        h0, x = _rand(5, 4, seed=2, dtype=dtype), _rand(5, 3, seed=3,
                                                         dtype=dtype)
        y = link(h0, x)
        assert y.dtype == dtype
        tol = 1e-2 if dtype == numpy.float16 else 1e-5
        numpy.testing.assert_allclose(y.array, _ref_step(link, h0, x),
                                      rtol=tol, atol=tol)

    def test_stateful_starts_from_zeros(self):
        link = StatefulMGU(3, 4)
        _randomize(link)
        h = numpy.zeros((2, 4))
        for s in range(3):
            x = _rand(2, 3, seed=s)
            y = link(x)
            h = _ref_step(link, h, x)
            numpy.testing.assert_allclose(y.array, h, rtol=1e-5, atol=1e-6)
            assert link.h is y

    def test_initial_state_dtype_follows_config(self):
        with cpuframe.using_config('dtype', numpy.float64):
            link = StatefulMGU(3, 2)
            y = link(_rand(2, 3, dtype=numpy.float64))
        assert y.dtype == numpy.float64

    def test_set_and_reset_state(self):
        link = StatefulMGU(3, 2)
        _randomize(link)
        stateless = StatelessMGU(3, 2)
        stateless.copyparams(link)
        h0, x = _rand(2, 2, seed=4), _rand(2, 3)
        link.set_state(cpuframe.Variable(h0))
        numpy.testing.assert_allclose(link(x).array,
                                      stateless(h0, x).array, rtol=1e-6)
        link.reset_state()
        assert link.h is None
        numpy.testing.assert_allclose(
            link(x).array, _ref_step(link, numpy.zeros((2, 2)), x),
            rtol=1e-5, atol=1e-6)


class TestErrors:
    @pytest.mark.parametrize('h', [numpy.zeros((2, 3), numpy.float32), 1.0])
    def test_set_state_bad(self, h):
        with pytest.raises((TypeError, ValueError),
                           match='StatefulMGU.set_state'):
            StatefulMGU(3, 2).set_state(h)

    def test_batch_mismatch(self):
        link = StatefulMGU(3, 2)
        link(_rand(2, 3))
        with pytest.raises(ValueError, match='StatefulMGU.*x of shape'):
            link(_rand(3, 3))

    def test_bad_state_width(self):
        with pytest.raises(ValueError, match='StatelessMGU.*h of shape'):
            StatelessMGU(3, 2)(_rand(2, 3), _rand(2, 3))


def test_save_load_npz(tmp_path):
    link = StatefulMGU(3, 2)
    _randomize(link)
    path = str(tmp_path / 'mgu.npz')
    serializers.save_npz(path, link)
    with numpy.load(path) as npz:
        assert sorted(npz.files) == sorted(n[1:] for n in NAMES)
    other = StatelessMGU(3, 2)
    serializers.load_npz(path, other)
    for (_, p), (_, q) in zip(link.namedparams(), other.namedparams()):
        numpy.testing.assert_array_equal(p.array, q.array)


class TestGradient:
    def _link(self, cls):
        with cpuframe.using_config('dtype', numpy.float64):
            link = cls(3, 2)
        _randomize(link)
        return link

    def test_stateless(self):
        link = self._link(StatelessMGU)
        h0, x = (_rand(2, 2, seed=1, dtype=numpy.float64),
                 _rand(2, 3, seed=2, dtype=numpy.float64))
        gradient_check.check_backward(
            link, (h0, x), _rand(2, 2, seed=3, dtype=numpy.float64),
            params=tuple(link.params()), eps=1e-4, atol=1e-6, rtol=1e-5)

    def test_stateless_double_backward(self):
        link = self._link(StatelessMGU)
        h0, x = (_rand(2, 2, seed=1, dtype=numpy.float64),
                 _rand(2, 3, seed=2, dtype=numpy.float64))
        gradient_check.check_double_backward(
            link, (h0, x), _rand(2, 2, seed=3, dtype=numpy.float64),
            (_rand(2, 2, seed=4, dtype=numpy.float64),
             _rand(2, 3, seed=5, dtype=numpy.float64)))

    def test_stateful_two_steps(self):
        link = self._link(StatefulMGU)

        def f(x1, x2):
            link.reset_state()
            link(x1)
            return link(x2)

        with cpuframe.using_config('dtype', numpy.float64):
            gradient_check.check_backward(
                f, (_rand(2, 3, seed=1, dtype=numpy.float64),
                    _rand(2, 3, seed=2, dtype=numpy.float64)),
                _rand(2, 2, seed=3, dtype=numpy.float64),
                params=tuple(link.params()), eps=1e-4, atol=1e-6, rtol=1e-5)


def test_learns_to_remember_the_first_input():
    # the sign of x_0 must survive three steps of noise
    rng = numpy.random.RandomState(0)
    mgu = StatefulMGU(1, 8)
    out = L.Linear(8, 1)
    model = cpuframe.Chain()
    with model.init_scope():
        model.mgu, model.out = mgu, out
    opt = cpuframe.optimizers.Adam(0.03)
    opt.setup(model)

    def run(xs):
        mgu.reset_state()
        for x in xs:
            h = mgu(x[:, None])
        return out(h)[:, 0]

    for _ in range(100):
        xs = rng.uniform(-1, 1, (4, 32)).astype(numpy.float32)
        loss = cpuframe.functions.sigmoid_cross_entropy(
            run(xs), (xs[0] > 0).astype(numpy.int32))
        model.cleargrads()
        loss.backward()
        opt.update()
    xs = rng.uniform(-1, 1, (4, 200)).astype(numpy.float32)
    assert ((run(xs).array > 0) == (xs[0] > 0)).mean() > 0.9
