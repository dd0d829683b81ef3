"""crf1d and argmax_crf1d against brute-force enumeration of label paths."""
import itertools
import math

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check

# lengths of the sequences of a batch, longest first
LENGTHS = [(1,), (3,), (2, 2), (4, 2, 1), (3, 3, 1, 1)]


def _path_score(cost, x, path):
    s = sum(float(x[i, p]) for i, p in enumerate(path))
    return s + sum(float(cost[a, b]) for a, b in zip(path, path[1:]))


def _brute(cost, seqs, labels):
    """(loss, best score, best path) of each sequence, by enumeration."""
    out = []
    for x, y in zip(seqs, labels):
        n_label = cost.shape[0]
        scores = {p: _path_score(cost, x, p)
                  for p in itertools.product(range(n_label), repeat=len(x))}
        m = max(scores.values())
        log_z = m + math.log(sum(math.exp(s - m) for s in scores.values()))
        best = max(scores, key=scores.get)
        gold = None if y is None else _path_score(cost, x, tuple(y))
        out.append((None if gold is None else log_z - gold, m, best))
    return out


def _batch(lengths, n_label, dtype, seed=0):
    rng = numpy.random.RandomState(seed)
    cost = rng.uniform(-1, 1, (n_label, n_label)).astype(dtype)
    seqs = [rng.uniform(-1, 1, (n, n_label)).astype(dtype) for n in lengths]
    labels = [rng.randint(0, n_label, n).astype(numpy.int32)
              for n in lengths]
    return cost, seqs, labels


def _time_major(seqs):
    return [numpy.stack([s[t] for s in seqs if len(s) > t])
            for t in range(len(seqs[0]))]


@pytest.mark.parametrize('lengths', LENGTHS)
@pytest.mark.parametrize('n_label', [1, 2, 3])
@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('reduce', ['mean', 'no'])
def test_forward_matches_enumeration(lengths, n_label, dtype, reduce):
    cost, seqs, labels = _batch(lengths, n_label, dtype)
    xs, ys = _time_major(seqs), _time_major(labels)
    loss = F.crf1d(cost, xs, ys, reduce=reduce)
    expected = numpy.array([r[0] for r in _brute(cost, seqs, labels)])
    if reduce == 'mean':
        expected = expected.mean()
    assert loss.dtype == dtype and loss.shape == expected.shape
    tol = 1e-5 if dtype == numpy.float32 else 1e-12
    numpy.testing.assert_allclose(loss.array, expected, rtol=tol, atol=tol)


def test_default_reduce_is_mean_and_variables_are_accepted():
    cost, seqs, labels = _batch((3, 2), 3, numpy.float32)
    xs, ys = _time_major(seqs), _time_major(labels)
    loss = F.crf1d(cpuframe.Variable(cost),
                   tuple(cpuframe.Variable(x) for x in xs),
                   [cpuframe.Variable(y) for y in ys])
    per_seq = F.crf1d(cost, xs, ys, reduce='no').array
    assert loss.shape == ()
    numpy.testing.assert_allclose(loss.array, per_seq.mean(), rtol=1e-6)


def test_loss_is_a_negative_log_probability():
    # the probabilities of all label paths of one sequence sum to one
    cost, seqs, _ = _batch((3,), 2, numpy.float64, seed=3)
    total = 0.0
    for path in itertools.product(range(2), repeat=3):
        ys = [numpy.array([p], numpy.int32) for p in path]
        total += math.exp(-float(F.crf1d(cost, _time_major(seqs), ys).array))
    assert abs(total - 1.0) < 1e-12


@pytest.mark.parametrize('lengths', [(3,), (3, 2, 2), (2, 1, 1)])
@pytest.mark.parametrize('reduce', ['mean', 'no'])
def test_backward(lengths, reduce):
    cost, seqs, labels = _batch(lengths, 3, numpy.float64, seed=1)
    xs, ys = _time_major(seqs), _time_major(labels)
    rng = numpy.random.RandomState(2)
    gy = None if reduce == 'mean' else rng.randn(len(lengths))

    def f(cost, *xs):
        return F.crf1d(cost, list(xs), ys, reduce=reduce)
    gradient_check.check_backward(f, (cost, *xs), gy, atol=1e-7, rtol=1e-5)


def test_backward_float32():
    cost, seqs, labels = _batch((3, 1), 2, numpy.float32, seed=4)
    xs, ys = _time_major(seqs), _time_major(labels)
    gradient_check.check_backward(
        lambda c, *xs: F.crf1d(c, list(xs), ys), (cost, *xs), None,
        dtype=numpy.float64, atol=1e-3, rtol=1e-3)


def test_gradient_is_marginals_minus_gold():
    # d loss / d x[i, t] = P(y_i = t) - [gold y_i = t], by enumeration
    cost, seqs, labels = _batch((3,), 2, numpy.float64, seed=5)
    xs = [cpuframe.Variable(x) for x in _time_major(seqs)]
    F.crf1d(cost, xs, _time_major(labels), reduce='no').backward()
    marg = numpy.zeros((3, 2))
    paths = list(itertools.product(range(2), repeat=3))
    w = numpy.array([math.exp(_path_score(cost, seqs[0], p)) for p in paths])
    for p, wp in zip(paths, w / w.sum()):
        marg[numpy.arange(3), p] += wp
    marg[numpy.arange(3), labels[0]] -= 1
    got = numpy.concatenate([x.grad for x in xs])
    numpy.testing.assert_allclose(got, marg, atol=1e-12)


@pytest.mark.parametrize('lengths', [(2,), (3, 1)])
def test_double_backward(lengths):
    cost, seqs, labels = _batch(lengths, 2, numpy.float64, seed=6)
    xs, ys = _time_major(seqs), _time_major(labels)
    rng = numpy.random.RandomState(7)
    gy = rng.randn(len(lengths))
    ggs = (rng.randn(*cost.shape),) + tuple(rng.randn(*x.shape) for x in xs)

    def f(cost, *xs):
        return F.crf1d(cost, list(xs), ys, reduce='no')
    gradient_check.check_double_backward(f, (cost, *xs), gy, ggs,
                                         atol=1e-6, rtol=1e-4)


@pytest.mark.parametrize('lengths', LENGTHS)
@pytest.mark.parametrize('n_label', [1, 2, 3])
@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
def test_argmax_matches_enumeration(lengths, n_label, dtype):
    cost, seqs, _ = _batch(lengths, n_label, dtype, seed=8)
    xs = _time_major(seqs)
    score, path = F.argmax_crf1d(cost, xs)
    ref = _brute(cost, seqs, [None] * len(seqs))
    assert score.dtype == dtype and score.shape == (len(lengths),)
    tol = 1e-5 if dtype == numpy.float32 else 1e-12
    numpy.testing.assert_allclose(score.array, [r[1] for r in ref],
                                  rtol=tol, atol=tol)
    assert len(path) == len(xs)
    for p, x in zip(path, xs):
        assert p.dtype == numpy.int32 and p.shape == x.shape[:1]
    numpy.testing.assert_array_equal(
        numpy.concatenate(path), numpy.concatenate(_time_major(
            [numpy.array(r[2]) for r in ref])))


def test_argmax_follows_the_transitions():
    # the scores alone prefer 1, 0, 1; forbidding changes keeps one label
    cost = numpy.array([[0., -10.], [-10., 0.]], numpy.float32)
    xs = [numpy.array([[0., 1.]], numpy.float32),
          numpy.array([[1.5, 0.]], numpy.float32),
          numpy.array([[0., 1.]], numpy.float32)]
    score, path = F.argmax_crf1d(cost, xs)
    assert [int(p[0]) for p in path] == [1, 1, 1]
    numpy.testing.assert_allclose(score.array, [2.0])
    score, path = F.argmax_crf1d(numpy.zeros_like(cost), xs)
    assert [int(p[0]) for p in path] == [1, 0, 1]


def test_argmax_score_backward():
    cost, seqs, _ = _batch((3, 2), 3, numpy.float64, seed=9)
    xs = _time_major(seqs)
    gy = numpy.random.RandomState(10).randn(2)
    gradient_check.check_backward(
        lambda c, *xs: F.argmax_crf1d(c, list(xs))[0], (cost, *xs), gy,
        atol=1e-7, rtol=1e-5)


def _good():
    cost, seqs, labels = _batch((3, 2), 3, numpy.float32)
    return cost, _time_major(seqs), _time_major(labels)


def test_bad_reduce():
    cost, xs, ys = _good()
    with pytest.raises(ValueError, match="crf1d: expected reduce 'mean' or "
                                         "'no', got 'sum'"):
        F.crf1d(cost, xs, ys, reduce='sum')


@pytest.mark.parametrize('mutate,error,match', [
    (lambda c, xs, ys: (c, xs, ys[:-1]), ValueError,
     r'as many label arrays as time steps, got len\(xs\)=3 and len\(ys\)=2'),
    (lambda c, xs, ys: (c, xs, [ys[0][:1]] + ys[1:]), ValueError,
     r'ys\[0\] of shape \(2,\)'),
    (lambda c, xs, ys: (c, [xs[0][:, :2]] + xs[1:], ys), ValueError,
     r'xs\[0\] of shape \(batch, n_label=3\), got \(2, 2\)'),
    (lambda c, xs, ys: (c[:2], xs, ys), ValueError,
     r'cost of shape \(n_label, n_label\), got \(2, 3\)'),
    (lambda c, xs, ys: (c[:2, :2], xs, ys), ValueError,
     r'xs\[0\] of shape \(batch, n_label=2\)'),
    (lambda c, xs, ys: (c, xs[::-1], ys[::-1]), ValueError,
     'batch sizes that never grow'),
    (lambda c, xs, ys: (c, [], []), ValueError, 'at least one time step'),
    (lambda c, xs, ys: (c, xs, [ys[0] + 3] + ys[1:]), ValueError,
     r'labels in \[0, n_label=3\), got ys\[0\]'),
    (lambda c, xs, ys: (c, xs, [ys[0] - 5] + ys[1:]), ValueError,
     r'labels in \[0, n_label=3\)'),
    (lambda c, xs, ys: (c, xs, [ys[0].astype(numpy.float32)] + ys[1:]),
     TypeError, r'ys\[0\] of a signed integer dtype'),
    (lambda c, xs, ys: (c, [xs[0].astype(numpy.float64)] + xs[1:], ys),
     TypeError, r'xs\[0\] of the dtype of cost'),
    (lambda c, xs, ys: (c.astype(numpy.int32), xs, ys), TypeError,
     'a float cost'),
    (lambda c, xs, ys: (c, xs[0], ys), TypeError, 'xs as a list'),
])
def test_bad_inputs(mutate, error, match):
    cost, xs, ys = mutate(*_good())
    with pytest.raises(error, match='crf1d: expected ' + match):
        F.crf1d(cost, xs, ys)


def test_argmax_bad_inputs():
    cost, xs, _ = _good()
    with pytest.raises(ValueError, match=r'argmax_crf1d: expected xs\[1\]'):
        F.argmax_crf1d(cost, [xs[0], xs[1][:, :1]])
    with pytest.raises(ValueError, match='argmax_crf1d: .*never grow'):
        F.argmax_crf1d(cost, xs[::-1])
