"""Arguments oneDNN has no primitive for take the NumPy path (issue 11).

Zero-size channels, kernels or units and window options like stride 2**31
made 'always' (and any device input) fail with oneDNN's "could not create
a primitive descriptor" where the NumPy path computes the (empty or zero)
result; the routes now decline them.
"""
import numpy
import pytest

import cpuframe.functions as F
from cpuframe import Variable
from cpuframe.backends import intel64
from cpuframe.configuration import using_config


def _ones(*shape):
    return numpy.arange(numpy.prod(shape), dtype=numpy.float32).reshape(shape) / 7


def conv(x, W):
    return F.convolution_2d(x, W)


CASES = {
    'conv_no_filters': (conv, (2, 3, 5, 5), (0, 3, 3, 3)),
    'conv_no_channels': (conv, (2, 0, 5, 5), (4, 0, 3, 3)),
    'conv_empty_kernel': (conv, (2, 3, 5, 5), (4, 3, 0, 0)),
    'conv_stride_2**31': (lambda x, W: F.convolution_2d(x, W, stride=2 ** 31),
                          (2, 3, 5, 5), (4, 3, 3, 3)),
    'conv_dilate_2**31': (lambda x, W: F.convolution_2d(x, W, dilate=2 ** 31),
                          (2, 3, 5, 5), (4, 3, 1, 1)),
    'deconv_no_filters': (lambda x, W: F.deconvolution_2d(x, W),
                          (2, 3, 5, 5), (3, 0, 3, 3)),
    'depthwise_no_multiplier': (lambda x, W: F.depthwise_convolution_2d(x, W),
                                (2, 3, 5, 5), (0, 3, 3, 3)),
    'linear_no_units': (lambda x, W: F.linear(x, W), (2, 3), (0, 3)),
    'linear_no_inputs': (lambda x, W: F.linear(x, W), (2, 0), (4, 0)),
    'linear_empty_batch': (lambda x, W: F.linear(x, W), (0, 3), (4, 3)),
    # Pooling with huge strides (W unused): the routes give the NumPy result.
    'max_pool_stride_2**31-2': (
        lambda x, W: F.max_pooling_2d(x, 2, stride=2 ** 31 - 2,
                                      cover_all=False) + 0 * F.sum(W),
        (2, 3, 5, 5), (1,)),
    'max_pool_stride_2**21': (
        lambda x, W: F.max_pooling_2d(x, 2, stride=2 ** 21,
                                      cover_all=False) + 0 * F.sum(W),
        (2, 3, 5, 5), (1,)),
    'avg_pool_stride_2**31-2': (
        lambda x, W: F.average_pooling_2d(x, 2, stride=2 ** 31 - 2) +
        0 * F.sum(W), (2, 3, 5, 5), (1,)),
    'avg_pool_stride_2**21': (
        lambda x, W: F.average_pooling_2d(x, 3, stride=2 ** 21, pad=1) +
        0 * F.sum(W), (2, 3, 5, 5), (1,)),
}


def _run(f, x, W, mode, where):
    with using_config('use_ideep', mode):
        xv = Variable(intel64.from_numpy(x) if where == 'device' else x.copy())
        Wv = Variable(W.copy())
        y = f(xv, Wv)
        y.grad = numpy.ones(y.shape, numpy.float32)
        y.backward()
    return [numpy.asarray(y.array), numpy.asarray(xv.grad), numpy.asarray(Wv.grad)]


@pytest.mark.parametrize('where', ['numpy', 'device'])
@pytest.mark.parametrize('name', sorted(CASES))
def test_degenerate_arguments_give_numpy_path_result(name, where):
    f, x_shape, w_shape = CASES[name]
    x, W = _ones(*x_shape), _ones(*w_shape)
    want = _run(f, x, W, 'never', 'numpy')
    got = _run(f, x, W, 'always', where)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        numpy.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize('units, in_size', [(0, 3), (4, 0)])
def test_n_step_lstm_with_no_units_or_no_inputs(units, in_size):
    rng = numpy.random.default_rng(0)
    hx = rng.standard_normal((1, 2, units)).astype(numpy.float32)
    cx = rng.standard_normal((1, 2, units)).astype(numpy.float32)
    ws = [[rng.standard_normal((units, in_size if j < 4 else units)).astype(
        numpy.float32) for j in range(8)]]
    bs = [[rng.standard_normal(units).astype(numpy.float32) for _ in range(8)]]
    xs = [rng.standard_normal((n, in_size)).astype(numpy.float32) for n in (2, 1)]
    results = []
    for mode in ('never', 'always'):
        with using_config('use_ideep', mode):
            hy, cy, ys = F.n_step_lstm(1, 0.0, hx, cx, ws, bs, xs)
        results.append([hy.array, cy.array] + [y.array for y in ys])
    for g, w in zip(*results):
        numpy.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
