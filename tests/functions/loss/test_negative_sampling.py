import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check


def _fixed_sampler(table):
    calls = []

    def sampler(shape):
        calls.append(shape)
        assert shape == table.shape
        return table.copy()
    sampler.calls = calls
    return sampler


def _data(rng, batch=5, units=4, vocab=7, k=3, dtype=numpy.float64):
    x = rng.uniform(-1, 1, (batch, units)).astype(dtype)
    W = rng.uniform(-1, 1, (vocab, units)).astype(dtype)
    t = rng.randint(0, vocab, batch).astype(numpy.int32)
    table = rng.randint(0, vocab, (batch, k + 1)).astype(numpy.int32)
    return x, t, W, table


def _reference(x, t, W, table):
    out = numpy.zeros(len(x))
    for i in range(len(x)):
        if t[i] == -1:
            continue
        z = x[i].astype(numpy.float64) @ W[t[i]].astype(numpy.float64)
        out[i] = -numpy.log(1 / (1 + numpy.exp(-z)))
        for j in table[i, 1:]:
            z = x[i].astype(numpy.float64) @ W[j].astype(numpy.float64)
            out[i] -= numpy.log(1 / (1 + numpy.exp(z)))
    return out


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('reduce', ['sum', 'no'])
@pytest.mark.parametrize('ignore', [False, True])
@pytest.mark.parametrize('k', [0, 1, 3])
def test_forward(dtype, reduce, ignore, k):
    x, t, W, table = _data(numpy.random.RandomState(0), k=k, dtype=dtype)
    if ignore:
        t[[1, 3]] = -1
    sampler = _fixed_sampler(table)
    y, samples = F.negative_sampling(x, t, W, sampler, k, reduce=reduce,
                                     return_samples=True)
    assert sampler.calls == [(5, k + 1)]
    expected = _reference(x, t, W, table)
    if reduce == 'sum':
        expected = expected.sum()
    assert y.dtype == dtype and y.shape == numpy.shape(expected)
    tol = 1e-5 if dtype == numpy.float32 else 1e-12
    numpy.testing.assert_allclose(y.array, expected, rtol=tol, atol=tol)
    numpy.testing.assert_array_equal(samples[:, 0], t)
    numpy.testing.assert_array_equal(samples[:, 1:], table[:, 1:])


def test_without_return_samples_returns_variable():
    x, t, W, table = _data(numpy.random.RandomState(1))
    y = F.negative_sampling(x, t, W, _fixed_sampler(table), 3)
    assert isinstance(y, cpuframe.Variable) and y.shape == ()


@pytest.mark.parametrize('reduce', ['sum', 'no'])
def test_backward(reduce):
    rng = numpy.random.RandomState(2)
    x, t, W, table = _data(rng)
    t[2] = -1
    gy = None if reduce == 'sum' else rng.randn(5)

    def f(x, W):
        return F.negative_sampling(x, t, W, _fixed_sampler(table), 3,
                                   reduce=reduce)
    gradient_check.check_backward(f, (x, W), gy, atol=1e-7, rtol=1e-5)


def test_ignored_rows_get_no_gradient():
    x, t, W, table = _data(numpy.random.RandomState(3))
    t[:] = -1
    t[0] = 2
    xv, Wv = cpuframe.Variable(x), cpuframe.Variable(W)
    F.negative_sampling(xv, t, Wv, _fixed_sampler(table), 3).backward()
    assert (xv.grad[1:] == 0).all() and (xv.grad[0] != 0).any()
    used = set(table[0, 1:]) | {2}
    for v in range(len(W)):
        assert (Wv.grad[v] != 0).any() == (v in used)


def test_double_backward():
    rng = numpy.random.RandomState(4)
    x, t, W, table = _data(rng, batch=3, units=2, vocab=4, k=2)
    gy = rng.randn(3)
    ggx = rng.randn(*x.shape)
    ggW = rng.randn(*W.shape)

    def f(x, W):
        return F.negative_sampling(x, t, W, _fixed_sampler(table), 2,
                                   reduce='no')
    gradient_check.check_double_backward(f, (x, W), gy, (ggx, ggW),
                                         atol=1e-6, rtol=1e-4)


def test_bad_inputs():
    x, t, W, table = _data(numpy.random.RandomState(5))
    sampler = _fixed_sampler(table)
    with pytest.raises(ValueError, match="reduce"):
        F.negative_sampling(x, t, W, sampler, 3, reduce='mean')
    with pytest.raises(TypeError, match='negative_sampling: x'):
        F.negative_sampling(x[0], t, W, sampler, 3)
    with pytest.raises(TypeError, match='negative_sampling: t'):
        F.negative_sampling(x, t[:2], W, sampler, 3)
    with pytest.raises(TypeError, match='negative_sampling: t'):
        F.negative_sampling(x, t.astype(numpy.float32), W, sampler, 3)
    with pytest.raises(TypeError, match='negative_sampling: W'):
        F.negative_sampling(x, t, W[:, :2], sampler, 3)
    with pytest.raises(ValueError, match='sample_size'):
        F.negative_sampling(x, t, W, sampler, -1)
    with pytest.raises(ValueError, match='sampler must return'):
        F.negative_sampling(x, t, W, lambda s: numpy.zeros((5, 2), 'i'), 3)
    with pytest.raises(ValueError, match='sampler must return'):
        F.negative_sampling(x, t, W, lambda s: numpy.zeros(s, 'f'), 3)
