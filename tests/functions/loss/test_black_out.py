"""F.black_out against the formula of the BlackOut paper."""
import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check


def _data(seed=0, n=3, d=4, v=6, s=2):
    rs = numpy.random.RandomState(seed)
    x = rs.randn(n, d)
    w = rs.randn(v, d)
    t = rs.randint(0, v, n).astype(numpy.int32)
    samples = rs.randint(0, v, (n, s)).astype(numpy.int32)
    return x, t, w, samples


def _reference(x, t, w, samples):
    out = []
    for i in range(len(x)):
        scores = w @ x[i]
        z = numpy.exp(scores[t[i]]) + numpy.exp(scores[samples[i]]).sum()
        p_t = numpy.exp(scores[t[i]]) / z
        p_s = numpy.exp(scores[samples[i]]) / z
        out.append(-numpy.log(p_t) - numpy.log(1 - p_s).sum())
    return numpy.array(out)


def test_values_no_and_mean():
    x, t, w, samples = _data()
    ref = _reference(x, t, w, samples)
    y = F.black_out(x, t, w, samples, reduce='no')
    assert y.shape == (3,)
    numpy.testing.assert_allclose(y.array, ref, rtol=1e-10)
    numpy.testing.assert_allclose(F.black_out(x, t, w, samples).array,
                                  ref.mean(), rtol=1e-10)
    y32 = F.black_out(x.astype(numpy.float32), t, w.astype(numpy.float32),
                      samples)
    assert y32.dtype == numpy.float32 and y32.shape == ()


def test_gradients():
    x, t, w, samples = _data(1)
    gy = numpy.random.RandomState(2).randn(3)

    def f(x, w):
        return F.black_out(x, t, w, samples, reduce='no')

    gradient_check.check_backward(f, (x, w), gy, dtype=numpy.float64,
                                  atol=1e-5, rtol=1e-4)


def test_bad_reduce():
    x, t, w, samples = _data()
    with pytest.raises(ValueError, match='reduce'):
        F.black_out(x, t, w, samples, reduce='sum')
