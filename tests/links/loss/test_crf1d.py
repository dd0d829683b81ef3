"""The CRF1d link: its parameter, both layouts of input, and training."""
import itertools
import math

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
import cpuframe.links as L
from cpuframe import initializers, optimizers, serializers


def _seqs(lengths, n_label, seed=0, dtype=numpy.float32):
    rng = numpy.random.RandomState(seed)
    xs = [rng.uniform(-1, 1, (n, n_label)).astype(dtype) for n in lengths]
    ys = [rng.randint(0, n_label, n).astype(numpy.int32) for n in lengths]
    return xs, ys


def _time_major(seqs):
    return [numpy.stack([s[t] for s in seqs if len(s) > t])
            for t in range(max(len(s) for s in seqs))]


def _path_score(cost, x, path):
    s = sum(float(x[i, p]) for i, p in enumerate(path))
    return s + sum(float(cost[a, b]) for a, b in zip(path, path[1:]))


def _uniform(dtype=numpy.float32):
    return initializers.Uniform(1.0, dtype, rng=numpy.random.RandomState(9))


class TestParameter:
    def test_default_is_zeros(self):
        crf = L.CRF1d(4)
        assert crf.cost.shape == (4, 4) and crf.cost.dtype == numpy.float32
        assert (crf.cost.array == 0).all()
        assert [name for name, _ in crf.namedparams()] == ['/cost']

    def test_initial_cost(self):
        init = numpy.arange(9, dtype=numpy.float32).reshape(3, 3)
        numpy.testing.assert_array_equal(L.CRF1d(3, init).cost.array, init)
        assert (L.CRF1d(2, 1.5).cost.array == 1.5).all()
        crf = L.CRF1d(2, initializers.Constant(-2.0, numpy.float64))
        assert crf.cost.dtype == numpy.float64
        assert (crf.cost.array == -2).all()

    def test_serialize(self, tmp_path):
        crf = L.CRF1d(3)
        crf.cost.array[...] = numpy.arange(9).reshape(3, 3)
        serializers.save_npz(tmp_path / 'crf.npz', crf)
        fresh = L.CRF1d(3)
        serializers.load_npz(tmp_path / 'crf.npz', fresh)
        numpy.testing.assert_array_equal(fresh.cost.array, crf.cost.array)


@pytest.mark.parametrize('reduce', ['mean', 'no'])
def test_forward_time_major_matches_function(reduce):
    crf = L.CRF1d(3, _uniform())
    xs, ys = _seqs((3, 2, 2), 3)
    loss = crf(_time_major(xs), _time_major(ys), reduce=reduce)
    expected = F.crf1d(crf.cost, _time_major(xs), _time_major(ys),
                       reduce=reduce)
    numpy.testing.assert_array_equal(loss.array, expected.array)
    loss = F.sum(loss)
    loss.backward()
    assert crf.cost.grad is not None and crf.cost.grad.shape == (3, 3)


@pytest.mark.parametrize('reduce', ['mean', 'no'])
def test_forward_transpose_takes_sequences_in_any_order(reduce):
    crf = L.CRF1d(3, _uniform())
    lengths = (1, 3, 2, 3)
    xs, ys = _seqs(lengths, 3, seed=1)
    loss = crf(xs, ys, reduce=reduce, transpose=True)
    # brute force, one sequence at a time, in the caller's order
    cost = crf.cost.array
    expected = []
    for x, y in zip(xs, ys):
        scores = [_path_score(cost, x, p)
                  for p in itertools.product(range(3), repeat=len(x))]
        log_z = math.log(sum(math.exp(s) for s in scores))
        expected.append(log_z - _path_score(cost, x, y))
    expected = numpy.array(expected)
    if reduce == 'mean':
        expected = expected.mean()
    assert loss.shape == expected.shape
    numpy.testing.assert_allclose(loss.array, expected, rtol=1e-5)


def test_forward_transpose_gradients_reach_the_sequences():
    crf = L.CRF1d(2, _uniform(numpy.float64))
    xs, ys = _seqs((1, 3, 2), 2, seed=2, dtype=numpy.float64)
    xs = [cpuframe.Variable(x) for x in xs]
    gy = numpy.array([0.5, -1.0, 2.0])
    loss = crf(xs, ys, reduce='no', transpose=True)
    loss.grad = gy
    loss.backward()
    for i, x in enumerate(xs):
        single = cpuframe.Variable(x.array.copy())
        F.crf1d(crf.cost.array,
                [single[t:t + 1] for t in range(len(x))],
                [ys[i][t:t + 1] for t in range(len(x))],
                reduce='no').backward()
        # the per-sequence gradient, scaled by that sequence's gy
        numpy.testing.assert_allclose(x.grad, gy[i] * single.grad,
                                      rtol=1e-12, atol=1e-12)


def test_argmax_time_major_matches_function():
    crf = L.CRF1d(3, _uniform())
    xs, _ = _seqs((3, 1), 3, seed=3)
    score, path = crf.argmax(_time_major(xs))
    s2, p2 = F.argmax_crf1d(crf.cost, _time_major(xs))
    numpy.testing.assert_array_equal(score.array, s2.array)
    for a, b in zip(path, p2):
        numpy.testing.assert_array_equal(a, b)


def test_argmax_transpose_gives_the_callers_order():
    crf = L.CRF1d(3, _uniform())
    xs, _ = _seqs((2, 4, 1, 3), 3, seed=4)
    score, path = crf.argmax(xs, transpose=True)
    cost = crf.cost.array
    assert score.shape == (4,) and len(path) == 4
    for x, s, p in zip(xs, score.array, path):
        scores = {q: _path_score(cost, x, q)
                  for q in itertools.product(range(3), repeat=len(x))}
        best = max(scores, key=scores.get)
        assert p.dtype == numpy.int32 and tuple(p.tolist()) == best
        numpy.testing.assert_allclose(s, scores[best], rtol=1e-5)


def test_training_learns_the_transitions():
    # the scores say nothing; the labels alternate, so only the transition
    # costs can explain them
    crf = L.CRF1d(2)
    opt = optimizers.Adam(alpha=0.1)
    opt.setup(crf)
    xs = [numpy.zeros((n, 2), numpy.float32) for n in (5, 4, 3)]
    ys = [numpy.arange(n, dtype=numpy.int32) % 2 for n in (5, 4, 3)]
    losses = []
    for _ in range(30):
        crf.cleargrads()
        loss = crf(xs, ys, transpose=True)
        loss.backward()
        opt.update()
        losses.append(float(loss.array))
    assert losses[-1] < 0.5 * losses[0]
    cost = crf.cost.array
    assert min(cost[0, 1], cost[1, 0]) > max(cost[0, 0], cost[1, 1])
    _, path = crf.argmax([numpy.array([[1., 0.]] + [[0., 0.]] * 3,
                                      numpy.float32)], transpose=True)
    assert path[0].tolist() == [0, 1, 0, 1]


def test_training_a_tagger_lowers_the_loss():
    rng = numpy.random.RandomState(5)
    feats = rng.randn(4, 6).astype(numpy.float32)   # a feature per word id
    lengths = (6, 5, 5, 3)
    words = [rng.randint(0, 4, n) for n in lengths]
    labels = [(w % 3).astype(numpy.int32) for w in words]
    model = cpuframe.Chain()
    with model.init_scope():
        model.emit = L.Linear(6, 3)
        model.crf = L.CRF1d(3)
    opt = optimizers.Adam(alpha=0.05)
    opt.setup(model)

    def loss_fn():
        xs = [model.emit(feats[w]) for w in words]
        return model.crf(xs, labels, transpose=True)
    first = float(loss_fn().array)
    for _ in range(40):
        model.cleargrads()
        loss = loss_fn()
        loss.backward()
        opt.update()
    assert float(loss_fn().array) < 0.3 * first
    _, path = model.crf.argmax([model.emit(feats[w]) for w in words],
                               transpose=True)
    for p, y in zip(path, labels):
        numpy.testing.assert_array_equal(p, y)


def test_bad_inputs():
    crf = L.CRF1d(3)
    xs, ys = _seqs((3, 2), 3)
    with pytest.raises(ValueError, match=r'CRF1d.forward: expected ys\[1\] '
                                         r'of shape \(2,\)'):
        crf(xs, [ys[0], ys[0]], transpose=True)
    with pytest.raises(ValueError, match='CRF1d.forward: expected one label '
                                         'sequence per sequence'):
        crf(xs, ys[:1], transpose=True)
    with pytest.raises(ValueError, match='CRF1d.argmax: expected xs as a '
                                         'non-empty list'):
        crf.argmax([], transpose=True)
    with pytest.raises(ValueError, match=r'crf1d: expected xs\[0\] of shape '
                                         r'\(batch, n_label=3\)'):
        crf([x[:, :2] for x in xs], ys, transpose=True)
    with pytest.raises(ValueError, match='crf1d: expected labels in'):
        crf(xs, [y + 3 for y in ys], transpose=True)
    with pytest.raises(ValueError, match='crf1d: expected batch sizes'):
        crf(xs[::-1], ys[::-1])   # time-major input must not grow
