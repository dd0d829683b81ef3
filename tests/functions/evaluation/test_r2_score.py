import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe.utils import type_check


def _reference(pred, true):
    out = []
    for j in range(true.shape[1]):
        t, p = true[:, j], pred[:, j]
        ss_tot = ((t - t.mean()) ** 2).sum()
        ss_res = ((t - p) ** 2).sum()
        out.append(0.0 if ss_tot == 0 else 1 - ss_res / ss_tot)
    return numpy.array(out)


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('multioutput', ['uniform_average', 'raw_values'])
def test_forward(dtype, multioutput):
    rng = numpy.random.RandomState(0)
    true = rng.randn(10, 3).astype(dtype)
    true[:, 2] = 1.5   # a constant output scores 0
    pred = (true + 0.3 * rng.randn(10, 3)).astype(dtype)
    y = F.r2_score(pred, true, multioutput=multioutput)
    expected = _reference(pred.astype(numpy.float64),
                          true.astype(numpy.float64))
    if multioutput == 'uniform_average':
        expected = expected.mean()
    assert y.dtype == dtype and y.shape == numpy.shape(expected)
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5)


def test_vector_and_perfect():
    t = numpy.array([1., 2., 3.])
    assert float(F.r2_score(t, t).array) == 1.0
    numpy.testing.assert_allclose(
        F.r2_score(numpy.full(3, 2.), t).array, 0.0, atol=1e-12)


def test_no_gradient():
    pred = cpuframe.Variable(numpy.array([1., 2., 4.]))
    y = F.r2_score(pred, numpy.array([1., 2., 3.]))
    y.backward()
    assert pred.grad is None


def test_bad_inputs():
    x = numpy.ones((3, 2))
    with pytest.raises(NotImplementedError, match='sample_weight'):
        F.r2_score(x, x, sample_weight=numpy.ones(3))
    with pytest.raises(ValueError, match='multioutput'):
        F.r2_score(x, x, multioutput='variance_weighted')
    with pytest.raises(type_check.InvalidType):
        F.r2_score(x, numpy.ones((3, 3)))
    with pytest.raises(type_check.InvalidType):
        F.r2_score(x.astype(numpy.int32), x)
