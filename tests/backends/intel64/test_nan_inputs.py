"""A NaN in the input comes out where the NumPy path puts it, on every route
(oneDNN's relu and max pooling kernels drop NaN; cpuframe must not)."""
import numpy
import pytest

import cpuframe.functions as F
from cpuframe import Variable
from cpuframe.backends import intel64
from cpuframe.configuration import using_config

RNG = numpy.random.RandomState(0)
X = RNG.randn(2, 16, 6, 6).astype(numpy.float32)
X[0, 1, 2, 3] = numpy.nan
X[1, 5, 0, 0] = numpy.nan
W = RNG.randn(4, 16, 3, 3).astype(numpy.float32)
G = numpy.ones(16, numpy.float32)
B = numpy.zeros(16, numpy.float32)
WL = RNG.randn(5, 16 * 36).astype(numpy.float32)

OPS = {
    'convolution_2d': lambda x: F.convolution_2d(x, W, pad=1),
    'relu': F.relu,
    'leaky_relu': F.leaky_relu,
    'tanh': F.tanh,
    'sigmoid': F.sigmoid,
    'elu': F.elu,
    'max_pooling_2d': lambda x: F.max_pooling_2d(x, 2),
    'max_pooling_2d_overlap': lambda x: F.max_pooling_2d(x, 3, 1, 1),
    'average_pooling_2d': lambda x: F.average_pooling_2d(x, 2),
    'batch_normalization': lambda x: F.batch_normalization(x, G, B),
    'local_response_normalization': F.local_response_normalization,
    'linear': lambda x: F.linear(x, WL),
    'concat': lambda x: F.concat([x, x]),
}


@pytest.mark.parametrize('where', ['numpy', 'device'])
@pytest.mark.parametrize('op', sorted(OPS))
def test_nan_pattern_matches_numpy_path(op, where):
    with using_config('use_ideep', 'never'):
        want = numpy.asarray(OPS[op](Variable(X.copy())).array)
    x = intel64.from_numpy(X) if where == 'device' else X.copy()
    with using_config('use_ideep', 'always'):
        got = numpy.asarray(OPS[op](Variable(x)).array)
    assert numpy.isnan(want).any()
    numpy.testing.assert_array_equal(numpy.isnan(got), numpy.isnan(want))
    finite = ~numpy.isnan(want)
    numpy.testing.assert_allclose(got[finite], want[finite], rtol=1e-4,
                                  atol=1e-4)


def test_relu_nan_on_the_device():
    x = Variable(intel64.from_numpy(X))
    with using_config('use_ideep', 'always'):
        y = F.relu(x)
        y.grad = intel64.from_numpy(numpy.ones(X.shape, numpy.float32))
        y.backward()
    assert intel64.is_native_array(y.array)
    numpy.testing.assert_array_equal(numpy.isnan(numpy.asarray(y.array)),
                                     numpy.isnan(X))
    # The NumPy path's mask, y > 0: 0 at a NaN too (oneDNN's relu backward
    # passed gy through there).
    gx = numpy.asarray(x.grad)
    numpy.testing.assert_array_equal(gx, (X > 0) * 1.0)


@pytest.mark.parametrize('where', ['numpy', 'device'])
def test_has_nan(where):
    a = numpy.zeros((3, 17), numpy.float32)
    send = intel64.from_numpy if where == 'device' else numpy.array
    assert not intel64.has_nan(send(a))
    a[2, 16] = numpy.nan
    assert intel64.has_nan(send(a))
    assert not intel64.has_nan(send(numpy.full(5, numpy.inf, numpy.float32)))
    assert not intel64.has_nan(numpy.zeros((0, 3), numpy.float32))
