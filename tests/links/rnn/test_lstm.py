import numpy
import pytest

import cpuframe
from cpuframe import gradient_check, initializers, serializers
from cpuframe.links.rnn.lstm import LSTM, StatelessLSTM


def _sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


def _ref_step(link, c, h, x):
    """One LSTM step in float64; rows of c/h beyond len(x) are kept."""
    n = link.state_size
    W_up = link.upward.W.array.astype(numpy.float64)
    b = link.upward.b.array.astype(numpy.float64)
    W_lat = link.lateral.W.array.astype(numpy.float64)
    batch = len(x)
    pre = x.reshape(batch, -1) @ W_up.T + b
    if h is not None:
        pre = pre + h[:batch] @ W_lat.T
    if c is None:
        c = numpy.zeros((batch, n))
    # channel 4 * k + g is gate g (a, i, f, o) of unit k
    gates = pre.reshape(batch, n, 4)
    a = numpy.tanh(gates[:, :, 0])
    i = _sigmoid(gates[:, :, 1])
    f = _sigmoid(gates[:, :, 2])
    o = _sigmoid(gates[:, :, 3])
    c_new = c.copy()
    c_new[:batch] = a * i + f * c[:batch]
    y = o * numpy.tanh(c_new[:batch])
    if h is None:
        h_new = y
    else:
        h_new = h.copy()
        h_new[:batch] = y
    return c_new, h_new, y


def _rand(*shape, seed=0, dtype=numpy.float32):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _randomize(link, seed=1):
    """Random values everywhere (biases included) to exercise every term."""
    rng = numpy.random.RandomState(seed)
    for p in link.params():
        p.array[...] = rng.uniform(-1, 1, p.shape).astype(p.dtype)


class TestParameters:
    def test_names_and_shapes(self):
        link = LSTM(3, 4)
        shapes = {name: p.shape for name, p in link.namedparams()}
        assert shapes == {'/upward/W': (16, 3), '/upward/b': (16,),
                          '/lateral/W': (16, 4)}
        assert link.lateral.b is None
        assert link.state_size == 4
        assert link.c is None and link.h is None

    @pytest.mark.parametrize('cls', [LSTM, StatelessLSTM])
    def test_default_bias_has_forget_gate_one(self, cls):
        link = cls(3, 4)
        gates = link.upward.b.array.reshape(4, 4)
        numpy.testing.assert_array_equal(gates[:, 2], 1)
        numpy.testing.assert_array_equal(gates[:, [0, 1, 3]], 0)

    def test_custom_initializers(self):
        link = LSTM(3, 2, lateral_init=0.25, upward_init=-0.5,
                    bias_init=0.75, forget_bias_init=-2.0)
        numpy.testing.assert_array_equal(link.lateral.W.array, 0.25)
        numpy.testing.assert_array_equal(link.upward.W.array, -0.5)
        numpy.testing.assert_array_equal(
            link.upward.b.array, [0.75, 0.75, -2.0, 0.75] * 2)

    def test_weight_initializer_sees_row_blocks(self):
        # Chainer applies the initializer to each out_size-row block of W
        link = LSTM(4, 4, lateral_init=initializers.Orthogonal(1.0),
                    upward_init=initializers.Orthogonal(1.0))
        for W in (link.lateral.W.array, link.upward.W.array):
            for k in range(4):
                block = W[4 * k:4 * k + 4].astype(numpy.float64)
                numpy.testing.assert_allclose(block @ block.T, numpy.eye(4),
                                              atol=1e-5)

    def test_default_weight_scale(self):
        link = LSTM(400, 50)
        for W, fan_in in ((link.upward.W.array, 400),
                          (link.lateral.W.array, 50)):
            assert abs(W.std() * numpy.sqrt(fan_in) - 1) < 0.05

    @pytest.mark.parametrize('args', [(4,), (None, 4)])
    @pytest.mark.parametrize('cls', [LSTM, StatelessLSTM])
    def test_lazy_in_size(self, cls, args):
        link = cls(*args)
        assert link.upward.W.array is None
        assert [n for n, _ in link.namedparams(include_uninit=False)] == \
            ['/lateral/W', '/upward/b']  # sorted, as Chainer 7
        x = _rand(2, 3, 2)  # flattened to in_size 6
        if cls is LSTM:
            y = link(x)
        else:
            _, y = link(None, None, x)
        assert y.shape == (2, 4)
        assert link.upward.W.shape == (16, 6)
        assert link.upward.in_size == 6
        gates = link.upward.b.array.reshape(4, 4)
        numpy.testing.assert_array_equal(gates[:, 2], 1)
        assert numpy.isfinite(link.upward.W.array).all()
        assert link.upward.W.array.std() > 0


class TestForward:
    def test_steps_against_numpy_with_shrinking_batch(self):
        link = LSTM(3, 4)
        _randomize(link)
        xs = [_rand(5, 3, seed=s) for s in range(2)] + \
            [_rand(3, 3, seed=5), _rand(3, 3, seed=6), _rand(1, 3, seed=7)]
        c = h = None
        for x in xs:
            y = link(x)
            c, h, y_ref = _ref_step(link, c, h, x.astype(numpy.float64))
            numpy.testing.assert_allclose(y.array, y_ref, rtol=1e-5,
                                          atol=1e-6)
            numpy.testing.assert_allclose(link.c.array, c, rtol=1e-5,
                                          atol=1e-6)
            numpy.testing.assert_allclose(link.h.array, h, rtol=1e-5,
                                          atol=1e-6)
        assert link.h.shape == (5, 4) and link.c.shape == (5, 4)

    def test_empty_batch_keeps_state(self):
        link = LSTM(3, 2)
        link(_rand(2, 3))
        h, c = link.h.array.copy(), link.c.array.copy()
        y = link(numpy.zeros((0, 3), numpy.float32))
        assert y.shape == (0, 2)
        numpy.testing.assert_array_equal(link.h.array, h)
        numpy.testing.assert_array_equal(link.c.array, c)

    def test_stateful_equals_stateless(self):
        stateful = LSTM(3, 4)
        _randomize(stateful)
        stateless = StatelessLSTM(3, 4)
        stateless.copyparams(stateful)
        c = h = None
        for s, batch in enumerate((3, 3, 3)):
            x = _rand(batch, 3, seed=s)
            y = stateful(x)
            c, h = stateless(c, h, x)
            numpy.testing.assert_allclose(y.array, h.array, rtol=1e-6,
                                          atol=1e-7)
            numpy.testing.assert_allclose(stateful.c.array, c.array,
                                          rtol=1e-6, atol=1e-7)

    def test_stateless_against_numpy(self):
        link = StatelessLSTM(3, 2)
        _randomize(link)
        c0, h0, x = _rand(4, 2, seed=1), _rand(4, 2, seed=2), _rand(4, 3)
        c, h = link(c0, h0, x)
        c_ref, h_ref, _ = _ref_step(link, c0.astype(numpy.float64),
                                    h0.astype(numpy.float64),
                                    x.astype(numpy.float64))
        numpy.testing.assert_allclose(c.array, c_ref, rtol=1e-5, atol=1e-6)
        numpy.testing.assert_allclose(h.array, h_ref, rtol=1e-5, atol=1e-6)

    def test_reset_state(self):
        link = LSTM(3, 2)
        _randomize(link)
        x = _rand(2, 3)
        first = link(x).array.copy()
        second = link(x).array
        assert not numpy.allclose(first, second)
        link.reset_state()
        assert link.c is None and link.h is None
        numpy.testing.assert_array_equal(link(x).array, first)

    def test_set_state(self):
        link = LSTM(3, 2)
        _randomize(link)
        stateless = StatelessLSTM(3, 2)
        stateless.copyparams(link)
        c0, h0, x = _rand(2, 2, seed=3), _rand(2, 2, seed=4), _rand(2, 3)
        link.set_state(cpuframe.Variable(c0), cpuframe.Variable(h0))
        y = link(x)
        c, h = stateless(c0, h0, x)
        numpy.testing.assert_allclose(y.array, h.array, rtol=1e-6)
        numpy.testing.assert_allclose(link.c.array, c.array, rtol=1e-6)


class TestErrors:
    def test_batch_larger_than_state(self):
        link = LSTM(3, 2)
        link(_rand(2, 3))
        with pytest.raises(TypeError, match='LSTM'):
            link(_rand(3, 3))

    @pytest.mark.parametrize('c, h', [
        (numpy.zeros((2, 3), numpy.float32), numpy.zeros((2, 2), numpy.float32)),
        (numpy.zeros((2, 2), numpy.float32), numpy.zeros((3, 2), numpy.float32)),
        (numpy.zeros((2, 2), numpy.float32), 'h'),
    ])
    def test_set_state_bad(self, c, h):
        link = LSTM(3, 2)
        with pytest.raises((TypeError, ValueError), match='LSTM.set_state'):
            link.set_state(c, h)

    def test_wrong_input_size(self):
        link = LSTM(3, 2)
        with pytest.raises(TypeError):
            link(_rand(2, 4))


class TestCopyAndSerialize:
    def test_copy(self):
        link = LSTM(3, 2)
        _randomize(link)
        x = _rand(2, 3)
        copied = link.copy('copy')
        assert [n for n, _ in copied.namedparams()] == \
            [n for n, _ in link.namedparams()]
        for (_, p), (_, q) in zip(link.namedparams(), copied.namedparams()):
            assert p is not q and p.array is not q.array
            numpy.testing.assert_array_equal(p.array, q.array)
        numpy.testing.assert_array_equal(copied(x).array, link(x).array)
        # independent parameters
        link.upward.W.array[...] = 0
        assert numpy.abs(copied.upward.W.array).sum() > 0
        copied.reset_state()
        link.reset_state()
        assert not numpy.allclose(copied(x).array, link(x).array)

    def test_copy_init_redraws_with_the_lstm_initializers(self):
        link = LSTM(3, 4, bias_init=0.5, forget_bias_init=2.0)
        fresh = link.copy('init')
        gates = fresh.upward.b.array.reshape(4, 4)
        numpy.testing.assert_array_equal(gates[:, 2], 2.0)
        numpy.testing.assert_array_equal(gates[:, [0, 1, 3]], 0.5)
        for W in (fresh.upward.W.array, fresh.lateral.W.array):
            assert W.std() > 0.1
        assert not numpy.array_equal(fresh.upward.W.array,
                                     link.upward.W.array)

    def test_to_device_moves_the_state(self):
        link = LSTM(3, 2)
        link(_rand(2, 3))
        h, c = link.h, link.c
        link.to_device('@numpy')
        assert link.h is h and link.c is c
        assert link.device == cpuframe.backend.cpu_device

    def test_save_load_npz(self, tmp_path):
        link = LSTM(3, 2)
        _randomize(link)
        path = str(tmp_path / 'lstm.npz')
        serializers.save_npz(path, link)
        with numpy.load(path) as npz:
            assert sorted(npz.files) == ['lateral/W', 'upward/W', 'upward/b']
        other = LSTM(3, 2)
        serializers.load_npz(path, other)
        for (_, p), (_, q) in zip(link.namedparams(), other.namedparams()):
            numpy.testing.assert_array_equal(p.array, q.array)

    def test_load_into_lazy_link(self, tmp_path):
        link = LSTM(3, 2)
        _randomize(link)
        path = str(tmp_path / 'lstm.npz')
        serializers.save_npz(path, link)
        lazy = LSTM(2)
        serializers.load_npz(path, lazy)
        x = _rand(2, 3)
        numpy.testing.assert_array_equal(lazy(x).array, link(x).array)


class TestGradient:
    def _link(self, cls):
        with cpuframe.using_config('dtype', numpy.float64):
            link = cls(3, 2)
        _randomize(link)
        assert link.upward.W.dtype == numpy.float64
        return link

    def test_stateful_two_steps_with_shrink(self):
        link = self._link(LSTM)

        def f(c0, h0, x1, x2):
            link.reset_state()
            link.set_state(c0, h0)
            link(x1)
            y = link(x2)
            return y, link.c, link.h

        c0, h0 = _rand(3, 2, seed=1, dtype=numpy.float64), \
            _rand(3, 2, seed=2, dtype=numpy.float64)
        x1, x2 = _rand(3, 3, seed=3, dtype=numpy.float64), \
            _rand(2, 3, seed=4, dtype=numpy.float64)
        gys = (_rand(2, 2, seed=5, dtype=numpy.float64),
               _rand(3, 2, seed=6, dtype=numpy.float64),
               _rand(3, 2, seed=7, dtype=numpy.float64))
        gradient_check.check_backward(
            f, (c0, h0, x1, x2), gys, params=tuple(link.params()),
            eps=1e-4, atol=1e-6, rtol=1e-5)

    def test_stateless(self):
        link = self._link(StatelessLSTM)
        c0, h0, x = (_rand(2, 2, seed=1, dtype=numpy.float64),
                     _rand(2, 2, seed=2, dtype=numpy.float64),
                     _rand(2, 3, seed=3, dtype=numpy.float64))
        gys = (_rand(2, 2, seed=4, dtype=numpy.float64),
               _rand(2, 2, seed=5, dtype=numpy.float64))
        gradient_check.check_backward(
            link, (c0, h0, x), gys, params=tuple(link.params()),
            eps=1e-4, atol=1e-6, rtol=1e-5)
