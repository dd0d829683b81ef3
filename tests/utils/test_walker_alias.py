import numpy
import pytest

from cpuframe.utils import WalkerAlias


@pytest.mark.parametrize('probs', [
    [1., 2., 3., 4.],
    [0., 5., 0., 1., 0.],
    [1.],
    [0.25] * 8,
    numpy.random.RandomState(0).rand(50) ** 3,
])
def test_sample_frequencies_match_probs(probs):
    probs = numpy.asarray(probs, numpy.float64)
    numpy.random.seed(1)
    sampler = WalkerAlias(probs)
    n = 200000
    s = sampler.sample((n,))
    assert s.dtype == numpy.int32 and s.shape == (n,)
    freq = numpy.bincount(s, minlength=len(probs)) / n
    expected = probs / probs.sum()
    assert (freq[expected == 0] == 0).all()
    numpy.testing.assert_allclose(freq, expected, atol=4e-3)


def test_table_is_exact():
    # P(i) = (threshold[i] + sum_j [values[j] == i] (1 - threshold[j])) / n
    probs = numpy.random.RandomState(3).rand(17)
    sampler = WalkerAlias(probs)
    n = len(probs)
    p = sampler.threshold.astype(numpy.float64).copy()
    for j in range(n):
        if sampler.values[j] != j:
            p[sampler.values[j]] += 1 - sampler.threshold[j]
    numpy.testing.assert_allclose(p / n, probs / probs.sum(), atol=1e-6)


def test_sample_shape_and_seed():
    sampler = WalkerAlias([1, 1, 2])
    numpy.random.seed(5)
    a = sampler.sample((3, 4))
    numpy.random.seed(5)
    b = sampler.sample((3, 4))
    assert a.shape == (3, 4)
    numpy.testing.assert_array_equal(a, b)
    assert ((a >= 0) & (a < 3)).all()


def test_to_cpu_keeps_numpy():
    sampler = WalkerAlias([1, 2]).to_cpu()
    assert isinstance(sampler.threshold, numpy.ndarray)
    assert sampler.use_gpu is False
    assert sampler.sample((2,)).dtype == numpy.int32


@pytest.mark.parametrize('probs, match', [
    ([], 'non-empty'),
    ([[1., 2.]], 'non-empty 1-D'),
    ([1., -1.], 'non-negative'),
    ([0., 0.], 'positive sum'),
    ([1., numpy.nan], 'finite'),
])
def test_bad_probs(probs, match):
    with pytest.raises(ValueError, match=match):
        WalkerAlias(probs)
