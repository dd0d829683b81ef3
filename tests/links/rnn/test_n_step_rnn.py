import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check, serializers
from cpuframe.links.rnn.n_step_gru import NStepBiGRU, NStepGRU
from cpuframe.links.rnn.n_step_lstm import NStepBiLSTM, NStepLSTM
from cpuframe.links.rnn.n_step_rnn import (
    NStepBiRNNReLU,
    NStepBiRNNTanh,
    NStepRNNReLU,
    NStepRNNTanh,
)

# class, cell kind, bidirectional
CASES = [
    (NStepRNNTanh, 'tanh', False), (NStepRNNReLU, 'relu', False),
    (NStepBiRNNTanh, 'tanh', True), (NStepBiRNNReLU, 'relu', True),
    (NStepGRU, 'gru', False), (NStepBiGRU, 'gru', True),
    (NStepLSTM, 'lstm', False), (NStepBiLSTM, 'lstm', True),
]
N_WEIGHTS = {'tanh': 2, 'relu': 2, 'gru': 6, 'lstm': 8}
FUNCTIONS = {
    NStepRNNTanh: lambda *a: F.n_step_rnn(*a, activation='tanh'),
    NStepRNNReLU: lambda *a: F.n_step_rnn(*a, activation='relu'),
    NStepBiRNNTanh: lambda *a: F.n_step_birnn(*a, activation='tanh'),
    NStepBiRNNReLU: lambda *a: F.n_step_birnn(*a, activation='relu'),
    NStepGRU: F.n_step_gru, NStepBiGRU: F.n_step_bigru,
    NStepLSTM: F.n_step_lstm, NStepBiLSTM: F.n_step_bilstm,
}

params_cases = pytest.mark.parametrize(
    'cls, kind, bi', CASES, ids=[c[0].__name__ for c in CASES])


def _sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


def _cell(kind, w, b, x, h, c):
    """One step of one sequence, written gate by gate (Chainer's layout)."""
    def lin(j, v):
        return w[j] @ v + b[j]

    if kind == 'tanh':
        return numpy.tanh(lin(0, x) + lin(1, h)), None
    if kind == 'relu':
        return numpy.maximum(lin(0, x) + lin(1, h), 0), None
    if kind == 'gru':
        r = _sigmoid(lin(0, x) + lin(3, h))
        z = _sigmoid(lin(1, x) + lin(4, h))
        h_bar = numpy.tanh(lin(2, x) + r * lin(5, h))
        return (1 - z) * h_bar + z * h, None
    i = _sigmoid(lin(0, x) + lin(4, h))
    f = _sigmoid(lin(1, x) + lin(5, h))
    a = numpy.tanh(lin(2, x) + lin(6, h))
    o = _sigmoid(lin(3, x) + lin(7, h))
    c = f * c + i * a
    return o * numpy.tanh(c), c


def _reference(kind, link, hx, cx, xs):
    """``(hy, cy, ys)`` in float64, every sequence walked on its own."""
    n_dirs = 2 if link.use_bi_direction else 1
    ws = [[w.array.astype(numpy.float64) for w in wl] for wl in link.ws]
    bs = [[b.array.astype(numpy.float64) for b in bl] for bl in link.bs]
    hy = hx.astype(numpy.float64).copy()
    cy = None if cx is None else cx.astype(numpy.float64).copy()
    ys = []
    for s, x in enumerate(xs):
        seq = list(x.astype(numpy.float64))
        for layer in range(link.n_layers):
            outs = []
            for d in range(n_dirs):
                idx = layer * n_dirs + d
                h = hy[idx, s].copy()
                c = None if cy is None else cy[idx, s].copy()
                order = range(len(seq) - 1, -1, -1) if d else range(len(seq))
                out = [None] * len(seq)
                for t in order:
                    h, c = _cell(kind, ws[idx], bs[idx], seq[t], h, c)
                    out[t] = h
                hy[idx, s] = h
                if cy is not None:
                    cy[idx, s] = c
                outs.append(out)
            seq = [numpy.concatenate([o[t] for o in outs])
                   for t in range(len(seq))]
        width = link.out_size * n_dirs
        ys.append(numpy.array(seq).reshape(len(seq), width))
    return hy, cy, ys


def _rand(*shape, seed=0, dtype=numpy.float64):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _make(cls, n_layers=2, in_size=3, out_size=4, dropout=0.0,
          dtype=numpy.float64, seed=1):
    with cpuframe.using_config('dtype', dtype):
        link = cls(n_layers, in_size, out_size, dropout)
    rng = numpy.random.RandomState(seed)
    for p in link.params():
        p.array[...] = rng.uniform(-0.8, 0.8, p.shape).astype(p.dtype)
    return link


def _call(link, kind, hx, cx, xs):
    """``(hy, cy, ys)`` whatever the link's forward signature."""
    if kind == 'lstm':
        return link(hx, cx, xs)
    hy, ys = link(hx, xs)
    return hy, None, ys


def _states(link, kind, batch, seed=10, dtype=numpy.float64):
    shape = (link.n_layers * link.direction, batch, link.out_size)
    hx = _rand(*shape, seed=seed, dtype=dtype)
    cx = _rand(*shape, seed=seed + 1, dtype=dtype) if kind == 'lstm' \
        else None
    return hx, cx


LENGTHS = (2, 5, 0, 3, 5, 1)  # unsorted, with a tie and an empty sequence


class TestParameters:
    @params_cases
    def test_names_and_shapes(self, cls, kind, bi):
        link = cls(2, 3, 4, 0.25)
        n_dirs = 2 if bi else 1
        n = N_WEIGHTS[kind]
        assert len(link) == 2 * n_dirs
        assert link.n_layers == 2 and link.out_size == 4
        assert link.direction == n_dirs and link.dropout == 0.25
        assert link.n_cells == (2 if kind == 'lstm' else 1)
        names = [name for name, _ in link.namedparams()]
        # each link's parameters sorted by name, as Chainer 7 visits them
        expected = [name for i in range(2 * n_dirs) for name in sorted(
            '/{}/{}{}'.format(i, p, j) for j in range(n) for p in 'wb')]
        assert names == expected
        for name, p in link.namedparams():
            child, pname = int(name.split('/')[1]), name.split('/')[2]
            j = int(pname[1:])
            if pname[0] == 'b':
                assert p.shape == (4,)
                numpy.testing.assert_array_equal(p.array, 0)
                continue
            layer_in = 3 if child < n_dirs else 4 * n_dirs
            assert p.shape == (4, layer_in if j < n // 2 else 4)
        assert link.ws[1][0] is link[1].w0 and link.bs[0][n - 1] is \
            getattr(link[0], 'b{}'.format(n - 1))

    def test_default_weight_scale(self):
        link = NStepLSTM(1, 400, 50, 0.0)
        for j, fan_in in ((0, 400), (3, 400), (4, 50), (7, 50)):
            w = getattr(link[0], 'w{}'.format(j)).array
            assert abs(w.std() * numpy.sqrt(fan_in) - 1) < 0.1
            assert abs(w.mean()) < 0.1 / numpy.sqrt(fan_in)

    @params_cases
    def test_initializers(self, cls, kind, bi):
        link = cls(1, 3, 2, 0.0, initialW=0.5, initial_bias=-0.25)
        for name, p in link.namedparams():
            numpy.testing.assert_array_equal(
                p.array, -0.25 if name.split('/')[-1][0] == 'b' else 0.5)


class TestForward:
    @params_cases
    @pytest.mark.parametrize('given_state', [True, False])
    def test_against_numpy(self, cls, kind, bi, given_state):
        link = _make(cls)
        xs = [_rand(n, 3, seed=i) for i, n in enumerate(LENGTHS)]
        hx, cx = _states(link, kind, len(xs))
        if not given_state:
            hx = numpy.zeros_like(hx)
            cx = None if cx is None else numpy.zeros_like(cx)
        hy, cy, ys = _call(link, kind, hx if given_state else None,
                           cx if given_state else None, xs)
        hy_ref, cy_ref, ys_ref = _reference(kind, link, hx, cx, xs)
        numpy.testing.assert_allclose(hy.array, hy_ref, rtol=1e-10,
                                      atol=1e-12)
        if kind == 'lstm':
            numpy.testing.assert_allclose(cy.array, cy_ref, rtol=1e-10,
                                          atol=1e-12)
        assert isinstance(ys, list) and len(ys) == len(xs)
        for y, y_ref, n in zip(ys, ys_ref, LENGTHS):
            assert y.shape == (n, link.out_size * link.direction)
            numpy.testing.assert_allclose(y.array, y_ref, rtol=1e-10,
                                          atol=1e-12)

    @params_cases
    def test_float32_variables(self, cls, kind, bi):
        link = _make(cls, dtype=numpy.float32)
        xs = [cpuframe.Variable(_rand(n, 3, seed=i, dtype=numpy.float32))
              for i, n in enumerate((3, 1, 4))]
        hx, cx = _states(link, kind, 3, dtype=numpy.float32)
        hy, cy, ys = _call(link, kind, cpuframe.Variable(hx),
                           None if cx is None else cpuframe.Variable(cx), xs)
        assert hy.dtype == numpy.float32
        hy_ref, _, ys_ref = _reference(kind, link, hx, cx,
                                       [x.array for x in xs])
        numpy.testing.assert_allclose(hy.array, hy_ref, rtol=1e-4, atol=1e-5)
        for y, y_ref in zip(ys, ys_ref):
            numpy.testing.assert_allclose(y.array, y_ref, rtol=1e-4,
                                          atol=1e-5)

    @params_cases
    def test_against_function(self, cls, kind, bi):
        link = _make(cls)
        lengths = (4, 2, 5)
        xs = [_rand(n, 3, seed=i) for i, n in enumerate(lengths)]
        hx, cx = _states(link, kind, 3)
        hy, cy, ys = _call(link, kind, hx, cx, xs)
        # the function wants sequences sorted longest first, time-major
        order = [2, 0, 1]
        time_major = F.transpose_sequence([xs[i] for i in order])
        args = [hx[:, order]] + ([cx[:, order]] if kind == 'lstm' else [])
        out = FUNCTIONS[cls](2, 0.0, *args, link.ws, link.bs,
                             list(time_major))
        ys_f = F.transpose_sequence(out[-1])
        numpy.testing.assert_array_equal(hy.array[:, order], out[0].array)
        if kind == 'lstm':
            numpy.testing.assert_array_equal(cy.array[:, order],
                                             out[1].array)
        for k, i in enumerate(order):
            numpy.testing.assert_array_equal(ys[i].array, ys_f[k].array)

    @params_cases
    def test_order_of_inputs_is_kept(self, cls, kind, bi):
        link = _make(cls, n_layers=1)
        xs = [_rand(n, 3, seed=i) for i, n in enumerate((1, 4, 2, 4))]
        hx, cx = _states(link, kind, 4)
        hy, cy, ys = _call(link, kind, hx, cx, xs)
        perm = [2, 0, 3, 1]
        hy_p, cy_p, ys_p = _call(
            link, kind, hx[:, perm], None if cx is None else cx[:, perm],
            [xs[i] for i in perm])
        numpy.testing.assert_allclose(hy_p.array, hy.array[:, perm],
                                      rtol=1e-12)
        if kind == 'lstm':
            numpy.testing.assert_allclose(cy_p.array, cy.array[:, perm],
                                          rtol=1e-12)
        for k, i in enumerate(perm):
            numpy.testing.assert_allclose(ys_p[k].array, ys[i].array,
                                          rtol=1e-12)

    def test_empty_sequence_keeps_its_state(self):
        link = _make(NStepBiLSTM, n_layers=1)
        xs = [_rand(2, 3), _rand(0, 3), _rand(3, 3)]
        hx, cx = _states(link, 'lstm', 3)
        hy, cy, ys = link(hx, cx, xs)
        assert ys[1].shape == (0, 8)
        numpy.testing.assert_array_equal(hy.array[:, 1], hx[:, 1])
        numpy.testing.assert_array_equal(cy.array[:, 1], cx[:, 1])

    def test_dropout_only_in_training(self):
        link = _make(NStepLSTM, dropout=0.5)
        plain = link.copy('copy')
        plain.dropout = 0.0
        xs = [_rand(n, 3, seed=i) for i, n in enumerate((3, 2))]
        with cpuframe.using_config('train', False):
            _, _, ys_eval = link(None, None, xs)
        _, _, ys_plain = plain(None, None, xs)
        for a, b in zip(ys_eval, ys_plain):
            numpy.testing.assert_array_equal(a.array, b.array)
        numpy.random.seed(0)
        with cpuframe.using_config('train', True):
            _, _, ys_train = link(None, None, xs)
        assert not all(numpy.allclose(a.array, b.array)
                       for a, b in zip(ys_train, ys_plain))


class TestErrors:
    @params_cases
    def test_bad_xs(self, cls, kind, bi):
        link = cls(1, 3, 2, 0.0)
        name = cls.__name__
        args = (None, None) if kind == 'lstm' else (None,)
        with pytest.raises(TypeError, match=name):
            link(*args, numpy.zeros((2, 3), numpy.float32))
        with pytest.raises(ValueError, match=name):
            link(*args, [])
        with pytest.raises(ValueError, match=name):
            link(*args, [numpy.zeros((2, 4), numpy.float32)])
        with pytest.raises(ValueError, match=name):
            link(*args, [numpy.zeros((0, 3), numpy.float32)])
        with pytest.raises(TypeError, match=name):
            link(*args, [[1.0, 2.0, 3.0]])

    @params_cases
    def test_bad_state(self, cls, kind, bi):
        link = cls(1, 3, 2, 0.0)
        xs = [numpy.zeros((2, 3), numpy.float32)] * 2
        n = link.direction
        bad = numpy.zeros((n, 3, 2), numpy.float32)  # batch 3, not 2
        good = numpy.zeros((n, 2, 2), numpy.float32)
        with pytest.raises(ValueError, match=cls.__name__ + '.*hx'):
            if kind == 'lstm':
                link(bad, good, xs)
            else:
                link(bad, xs)
        if kind == 'lstm':
            with pytest.raises(ValueError, match=cls.__name__ + '.*cx'):
                link(good, bad, xs)

    def test_removed_arguments(self):
        link = NStepGRU(1, 3, 2, 0.0)
        with pytest.raises(ValueError, match='train'):
            link(None, [numpy.zeros((1, 3), numpy.float32)], train=True)
        with pytest.raises(ValueError, match='use_cudnn'):
            NStepGRU(1, 3, 2, 0.0, use_cudnn=True)
        with pytest.raises(TypeError, match='NStepGRU'):
            NStepGRU(1, 3, 2, 0.0, foo=1)

    @pytest.mark.parametrize('args', [(0, 3, 2, 0.0), (1, 0, 2, 0.0),
                                      (1, 3, 2, 1.0), (1, 3, None, 0.0)])
    def test_bad_construction(self, args):
        with pytest.raises(ValueError, match='NStepRNNTanh'):
            NStepRNNTanh(*args)

    def test_dtype_mismatch(self):
        link = NStepRNNTanh(1, 3, 2, 0.0)  # float32 parameters
        with pytest.raises(TypeError, match='n_step_rnn'):
            link(None, [numpy.zeros((2, 3), numpy.float64)])


class TestCopyAndSerialize:
    @params_cases
    def test_copy(self, cls, kind, bi):
        link = _make(cls, n_layers=1, dtype=numpy.float32)
        copied = link.copy('copy')
        assert copied.ws[0][0] is copied[0].w0
        assert copied.ws[0][0] is not link.ws[0][0]
        for (n, p), (m, q) in zip(link.namedparams(), copied.namedparams()):
            assert n == m and p.array is not q.array
            numpy.testing.assert_array_equal(p.array, q.array)
        xs = [_rand(n, 3, seed=i, dtype=numpy.float32)
              for i, n in enumerate((2, 3))]
        _, _, ys = _call(link, kind, None, None, xs)
        _, _, ys_c = _call(copied, kind, None, None, xs)
        for a, b in zip(ys, ys_c):
            numpy.testing.assert_array_equal(a.array, b.array)
        link[0].w0.array[...] = 0
        assert numpy.abs(copied[0].w0.array).sum() > 0
        _, _, ys_c2 = _call(copied, kind, None, None, xs)
        for a, b in zip(ys_c2, ys_c):
            numpy.testing.assert_array_equal(a.array, b.array)

    @params_cases
    def test_save_load_npz(self, cls, kind, bi, tmp_path):
        link = _make(cls, dtype=numpy.float32)
        path = str(tmp_path / 'rnn.npz')
        serializers.save_npz(path, link)
        n_children = 2 * link.direction
        with numpy.load(path) as npz:
            assert sorted(npz.files) == sorted(
                '{}/{}{}'.format(i, p, j) for i in range(n_children)
                for j in range(N_WEIGHTS[kind]) for p in 'wb')
        other = cls(2, 3, 4, 0.0)
        serializers.load_npz(path, other)
        for (_, p), (_, q) in zip(link.namedparams(), other.namedparams()):
            numpy.testing.assert_array_equal(p.array, q.array)


class TestGradient:
    @params_cases
    def test_backward(self, cls, kind, bi):
        link = _make(cls, n_layers=2, in_size=2, out_size=2)
        lengths = (2, 3, 1)
        xs = [_rand(n, 2, seed=i) for i, n in enumerate(lengths)]
        hx, cx = _states(link, kind, 3)
        width = 2 * link.direction
        gys = [_rand(*hx.shape, seed=20)]
        if kind == 'lstm':
            gys.append(_rand(*hx.shape, seed=21))
        gys += [_rand(n, width, seed=30 + i) for i, n in enumerate(lengths)]

        if kind == 'lstm':
            def f(hx, cx, *xs):
                hy, cy, ys = link(hx, cx, list(xs))
                return (hy, cy) + tuple(ys)
            inputs = (hx, cx) + tuple(xs)
        else:
            def f(hx, *xs):
                hy, ys = link(hx, list(xs))
                return (hy,) + tuple(ys)
            inputs = (hx,) + tuple(xs)
        gradient_check.check_backward(
            f, inputs, tuple(gys), params=tuple(link.params()), eps=1e-4,
            atol=1e-6, rtol=1e-5)
