import numpy
import pytest

import cpuframe
from cpuframe import gradient_check, serializers
from cpuframe.links.rnn.gru import GRU, StatefulGRU, StatelessGRU

NAMES = ['/W_r/W', '/W_r/b', '/U_r/W', '/U_r/b', '/W_z/W', '/W_z/b',
         '/U_z/W', '/U_z/b', '/W/W', '/W/b', '/U/W', '/U/b']


def _sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


def _lin(link, x):
    return x @ link.W.array.astype(numpy.float64).T + \
        link.b.array.astype(numpy.float64)


def _ref_step(gru, h, x):
    """The GRU step in float64; ``h=None`` is the stateful first step."""
    x = x.astype(numpy.float64)
    if h is None:
        return _sigmoid(_lin(gru.W_z, x)) * numpy.tanh(_lin(gru.W, x))
    h = h.astype(numpy.float64)
    r = _sigmoid(_lin(gru.W_r, x) + _lin(gru.U_r, h))
    z = _sigmoid(_lin(gru.W_z, x) + _lin(gru.U_z, h))
    h_bar = numpy.tanh(_lin(gru.W, x) + _lin(gru.U, r * h))
    return (1 - z) * h + z * h_bar


def _rand(*shape, seed=0, dtype=numpy.float32):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _randomize(link, seed=1):
    rng = numpy.random.RandomState(seed)
    for p in link.params():
        p.array[...] = rng.uniform(-1, 1, p.shape).astype(p.dtype)


CLASSES = [StatelessGRU, StatefulGRU, GRU]


class TestParameters:
    @pytest.mark.parametrize('cls', CLASSES)
    def test_names_and_shapes(self, cls):
        link = cls(3, 4)
        # (visited sorted by name, as Chainer 7 does)
        assert [n for n, _ in link.namedparams()] == sorted(NAMES)
        for name, p in link.namedparams():
            if name.endswith('/b'):
                assert p.shape == (4,)
                numpy.testing.assert_array_equal(p.array, 0)
            else:
                assert p.shape == (4, 3 if name.startswith('/W') else 4)
        assert link.state_size == 4

    @pytest.mark.parametrize('cls', CLASSES)
    def test_initializers(self, cls):
        link = cls(3, 2, init=0.5, inner_init=-0.25, bias_init=0.125)
        for name, p in link.namedparams():
            expected = 0.125 if name.endswith('/b') else \
                0.5 if name.startswith('/W') else -0.25
            numpy.testing.assert_array_equal(p.array, expected)

    def test_gru_is_stateful(self):
        assert issubclass(GRU, StatefulGRU)

    def test_lazy_in_size(self):
        link = StatelessGRU(None, 4)
        h = link(numpy.zeros((2, 4), numpy.float32), _rand(2, 5))
        assert h.shape == (2, 4) and link.W_r.W.shape == (4, 5)


class TestForward:
    def test_stateless_against_numpy(self):
        link = StatelessGRU(3, 4)
        _randomize(link)
        h0, x = _rand(5, 4, seed=2), _rand(5, 3, seed=3)
        numpy.testing.assert_allclose(link(h0, x).array,
                                      _ref_step(link, h0, x),
                                      rtol=1e-5, atol=1e-6)

    @pytest.mark.parametrize('cls', [StatefulGRU, GRU])
    def test_stateful_against_numpy_and_stateless(self, cls):
        link = cls(3, 4)
        _randomize(link)
        stateless = StatelessGRU(3, 4)
        stateless.copyparams(link)
        h_ref = h = None
        for s in range(3):
            x = _rand(2, 3, seed=s)
            y = link(x)
            h_ref = _ref_step(link, h_ref, x)
            numpy.testing.assert_allclose(y.array, h_ref, rtol=1e-5,
                                          atol=1e-6)
            assert link.h is y
            if h is not None:
                # after the first step the two forms agree exactly
                numpy.testing.assert_allclose(
                    y.array, stateless(h, x).array, rtol=1e-6)
            h = y

    def test_set_and_reset_state(self):
        link = StatefulGRU(3, 2)
        _randomize(link)
        stateless = StatelessGRU(3, 2)
        stateless.copyparams(link)
        h0, x = _rand(2, 2, seed=4), _rand(2, 3)
        link.set_state(cpuframe.Variable(h0))
        numpy.testing.assert_allclose(link(x).array,
                                      stateless(h0, x).array, rtol=1e-6)
        link.reset_state()
        assert link.h is None
        numpy.testing.assert_allclose(link(x).array, _ref_step(link, None, x),
                                      rtol=1e-5, atol=1e-6)


class TestErrors:
    def test_gru_rejects_two_arguments(self):
        link = GRU(3, 2)
        with pytest.raises(ValueError, match='StatelessGRU'):
            link(numpy.zeros((1, 2), numpy.float32), _rand(1, 3))

    def test_batch_mismatch(self):
        link = StatefulGRU(3, 2)
        link(_rand(2, 3))
        with pytest.raises(ValueError, match='StatefulGRU'):
            link(_rand(3, 3))

    @pytest.mark.parametrize('h', [numpy.zeros((2, 3), numpy.float32), 1.0])
    def test_set_state_bad(self, h):
        link = GRU(3, 2)
        with pytest.raises((TypeError, ValueError), match='GRU.set_state'):
            link.set_state(h)


class TestCopyAndSerialize:
    @pytest.mark.parametrize('cls', CLASSES)
    def test_copy(self, cls):
        link = cls(3, 2)
        _randomize(link)
        copied = link.copy('copy')
        for (n, p), (m, q) in zip(link.namedparams(), copied.namedparams()):
            assert n == m and p.array is not q.array
            numpy.testing.assert_array_equal(p.array, q.array)
        link.U.W.array[...] = 0
        assert numpy.abs(copied.U.W.array).sum() > 0

    @pytest.mark.parametrize('cls', CLASSES)
    def test_save_load_npz(self, cls, tmp_path):
        link = cls(3, 2)
        _randomize(link)
        path = str(tmp_path / 'gru.npz')
        serializers.save_npz(path, link)
        with numpy.load(path) as npz:
            assert sorted(npz.files) == sorted(n[1:] for n in NAMES)
        other = cls(3, 2)
        serializers.load_npz(path, other)
        for (_, p), (_, q) in zip(link.namedparams(), other.namedparams()):
            numpy.testing.assert_array_equal(p.array, q.array)


class TestGradient:
    def _link(self, cls):
        with cpuframe.using_config('dtype', numpy.float64):
            link = cls(3, 2)
        _randomize(link)
        assert link.W.W.dtype == numpy.float64
        return link

    def test_stateless(self):
        link = self._link(StatelessGRU)
        h0, x = (_rand(2, 2, seed=1, dtype=numpy.float64),
                 _rand(2, 3, seed=2, dtype=numpy.float64))
        gradient_check.check_backward(
            link, (h0, x), _rand(2, 2, seed=3, dtype=numpy.float64),
            params=tuple(link.params()), eps=1e-4, atol=1e-6, rtol=1e-5)

    def test_stateful_two_steps(self):
        link = self._link(GRU)

        def f(x1, x2):
            link.reset_state()
            link(x1)
            return link(x2)

        x1, x2 = (_rand(2, 3, seed=1, dtype=numpy.float64),
                  _rand(2, 3, seed=2, dtype=numpy.float64))
        gradient_check.check_backward(
            f, (x1, x2), _rand(2, 2, seed=3, dtype=numpy.float64),
            params=tuple(link.params()), eps=1e-4, atol=1e-6, rtol=1e-5)
