"""L.BlackOut: parameters, sampler, loss against the paper's formula."""
import numpy
import pytest

import cpuframe
import cpuframe.links as L
from cpuframe import gradient_check, serializers
from cpuframe.links.loss.black_out import BlackOut


def _reference(x, t, w, samples):
    out = []
    for i in range(len(x)):
        scores = w.astype(numpy.float64) @ x[i].astype(numpy.float64)
        z = numpy.exp(scores[t[i]]) + numpy.exp(scores[samples[i]]).sum()
        p_s = numpy.exp(scores[samples[i]]) / z
        out.append(-numpy.log(numpy.exp(scores[t[i]]) / z) -
                   numpy.log(1 - p_s).sum())
    return numpy.mean(out)


def test_parameters_and_module_path():
    link = L.BlackOut(3, [1, 2, 3, 4, 5], 2)
    assert L.BlackOut is BlackOut
    assert link.W.shape == (5, 3) and link.W.dtype == numpy.float32
    assert numpy.isnan(link.W.array).all()   # no initializer, as in Chainer
    assert link.sample_size == 2
    with cpuframe.using_config('dtype', numpy.float64):
        assert L.BlackOut(3, [1, 2], 1).W.dtype == numpy.float64


def test_sampler_follows_counts_without_power():
    link = L.BlackOut(2, [1, 0, 3], 1)
    numpy.random.seed(0)
    freq = numpy.bincount(link.sampler.sample((100000,)), minlength=3) / 1e5
    numpy.testing.assert_allclose(freq, [0.25, 0, 0.75], atol=5e-3)


def test_forward_draws_samples_and_matches_reference():
    rng = numpy.random.RandomState(1)
    link = L.BlackOut(4, [3, 1, 2, 5, 1], 3)
    link.W.array[...] = rng.randn(5, 4)
    x = rng.randn(6, 4).astype(numpy.float32)
    t = rng.randint(0, 5, 6).astype(numpy.int32)
    numpy.random.seed(7)
    y = link(x, t)
    numpy.random.seed(7)
    samples = link.sampler.sample((6, 3))
    assert y.shape == () and y.dtype == numpy.float32
    numpy.testing.assert_allclose(
        y.array, _reference(x, t, link.W.array, samples), rtol=1e-5)


def test_fixed_sample_data_and_gradients():
    rng = numpy.random.RandomState(2)
    with cpuframe.using_config('dtype', numpy.float64):
        link = L.BlackOut(3, [1, 1, 1, 1], 2)
    link.W.array[...] = rng.randn(4, 3)
    link.sample_data = rng.randint(0, 4, (5, 2)).astype(numpy.int32)
    x = rng.randn(5, 3)
    t = rng.randint(0, 4, 5).astype(numpy.int32)
    numpy.testing.assert_allclose(
        link(x, t).array, _reference(x, t, link.W.array, link.sample_data),
        rtol=1e-10)
    gradient_check.check_backward(
        lambda x: link(x, t), (x,), numpy.array(1.3),
        params=(link.W,), atol=1e-6, rtol=1e-5)


def test_training_separates_labels():
    # a linear problem: the label is the index of the largest input entry
    rng = numpy.random.RandomState(0)
    link = L.BlackOut(4, [1, 1, 1, 1], 2)
    link.W.array[...] = 0
    opt = cpuframe.optimizers.Adam(0.1)
    opt.setup(link)
    for _ in range(100):
        x = rng.randn(32, 4).astype(numpy.float32)
        loss = link(x, x.argmax(axis=1).astype(numpy.int32))
        link.cleargrads()
        loss.backward()
        opt.update()
    x = rng.randn(200, 4).astype(numpy.float32)
    pred = (x @ link.W.array.T).argmax(axis=1)
    assert (pred == x.argmax(axis=1)).mean() > 0.9


def test_serialize(tmp_path):
    link = L.BlackOut(3, [1, 2], 1)
    link.W.array[...] = 3
    serializers.save_npz(tmp_path / 'bo.npz', link)
    fresh = L.BlackOut(3, [1, 2], 1)
    serializers.load_npz(tmp_path / 'bo.npz', fresh)
    numpy.testing.assert_array_equal(fresh.W.array, 3)


@pytest.mark.parametrize('sample_size', [0, 1.5, True])
def test_bad_sample_size(sample_size):
    with pytest.raises(ValueError, match='BlackOut.*sample_size'):
        L.BlackOut(3, [1, 2], sample_size)
