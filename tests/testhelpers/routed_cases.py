"""The intel64 routes as cases to call: every routed op, forward and backward.

``CASES`` maps a name to ``make(rng, variant)``, which gives ``(fn, arrays,
link)``: ``fn(*Variables) -> Variable``; ``arrays`` the inputs (their
gradients are compared); ``link`` (or None) holds parameters whose
gradients are compared too. ``variant`` (0 or 1) picks one of two shapes.
Used by the thread stress test and the edge-value parity tests.
"""
import threading

import numpy

from cpuframe import Variable
from cpuframe import functions as F
from cpuframe import links as L
from cpuframe.backends import intel64
from cpuframe.configuration import using_config


def normal(rng, *shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(numpy.float32)


def _conv(rng, v):
    c = (8, 16)[v]
    W, b = normal(rng, c, 3, 3, 3, scale=0.3), normal(rng, c)
    x = normal(rng, 2 + v, 3, 12, 12)
    return (lambda x, W, b: F.convolution_2d(x, W, b, stride=1, pad=1),
            [x, W, b], None)


def _conv_relu(rng, v):
    fn, arrays, _ = _conv(rng, v)
    return (lambda *a: F.relu(fn(*a))), arrays, None


def _deconv(rng, v):
    c = (6, 10)[v]
    W, b = normal(rng, 4, c, 3, 3, scale=0.3), normal(rng, c)
    x = normal(rng, 2, 4, 7 + v, 7)
    return (lambda x, W, b: F.deconvolution_2d(x, W, b, stride=2, pad=1),
            [x, W, b], None)


def _depthwise(rng, v):
    W, b = normal(rng, 2, 4, 3, 3, scale=0.3), normal(rng, 8)
    x = normal(rng, 2 + v, 4, 10, 10)
    return (lambda x, W, b: F.depthwise_convolution_2d(x, W, b, pad=1),
            [x, W, b], None)


def _linear(rng, v):
    n = (64, 96)[v]
    W, b = normal(rng, n, 200, scale=0.1), normal(rng, n)
    x = normal(rng, 32, 200)
    return (lambda x, W, b: F.linear(x, W, b)), [x, W, b], None


def _max_pool(rng, v):
    x = normal(rng, 4, 16, 12 + 2 * v, 12)
    return (lambda x: F.max_pooling_2d(x, 3, stride=2, pad=1)), [x], None


def _avg_pool(rng, v):
    x = normal(rng, 4, 16, 12 + 2 * v, 12)
    return (lambda x: F.average_pooling_2d(x, 2)), [x], None


def _batch_norm(rng, v):
    c = (16, 24)[v]
    x = normal(rng, 8, c, 9, 9, scale=3.0) + 1.0
    gamma, beta = normal(rng, c) + 1.0, normal(rng, c)
    return (lambda x, g, b: F.batch_normalization(x, g, b)), [x, gamma, beta], None


def _fixed_batch_norm(rng, v):
    c = (16, 24)[v]
    x = normal(rng, 8, c, 9, 9)
    gamma, beta, mean = normal(rng, c) + 1.0, normal(rng, c), normal(rng, c)
    var = numpy.abs(normal(rng, c)) + 0.5
    return (lambda x, g, b: F.fixed_batch_normalization(x, g, b, mean, var),
            [x, gamma, beta], None)


def _lrn(rng, v):
    x = normal(rng, 4, 8 + 4 * v, 6, 6)
    return (lambda x: F.local_response_normalization(x)), [x], None


def _eltwise(f):
    def make(rng, v):
        x = normal(rng, 64, 300 + 64 * v, scale=2.0)
        return (lambda x: f(x)), [x], None
    return make


def _concat(rng, v):
    a, b = normal(rng, 4, 8, 5, 5), normal(rng, 4, 8 + 8 * v, 5, 5)
    return (lambda a, b: F.concat((a, b), axis=1)), [a, b], None


def _add(rng, v):
    a, b = normal(rng, 8, 16 + v, 9, 9), normal(rng, 8, 16 + v, 9, 9)
    return (lambda a, b: a + b), [a, b], None


def _softmax_xent(rng, v):
    x = normal(rng, 64, 10 + v, scale=3.0)
    t = rng.integers(0, 10 + v, 64).astype(numpy.int32)
    return (lambda x: F.softmax_cross_entropy(x, t, reduce='no')), [x], None


def _lstm_cell(rng, v):
    c, x = normal(rng, 16, 32 + 32 * v), normal(rng, 16, 128 + 128 * v)
    return (lambda c, x: F.concat(F.lstm(c, x), axis=1)), [c, x], None


# Initializers draw from NumPy's global generator: links are made one at a
# time, so that each call gets the same weights as when it ran alone.
_init_lock = threading.Lock()


def _n_step(cls):
    def make(rng, v):
        with _init_lock:
            numpy.random.seed(int(rng.integers(1 << 30)))
            link = cls(2, 6, 8 + 4 * v, 0.0)
        xs = [normal(rng, n, 6) for n in (5, 4, 4, 2)]

        def fn(*xs):
            out = link(None, None, list(xs)) if cls is L.NStepBiLSTM \
                else link(None, list(xs))
            return F.concat(out[-1], axis=0)
        return fn, xs, link
    return make


def _lstm_link_steps(rng, v):
    # L.LSTM's fused step (lstm_step_forward/backward): two steps, the second
    # with the lateral weight, from a fresh state
    with _init_lock:
        numpy.random.seed(int(rng.integers(1 << 30)))
        link = L.LSTM(6 + 2 * v, 8 + 4 * v)
    xs = [normal(rng, 3, 6 + 2 * v) for _ in range(2)]

    def fn(x0, x1):
        link.reset_state()
        link(x0)
        return F.concat((link(x1), link.c), axis=1)
    return fn, xs, link


CASES = dict([
    ('convolution_2d', _conv), ('convolution_2d+relu', _conv_relu),
    ('deconvolution_2d', _deconv), ('depthwise_convolution_2d', _depthwise),
    ('linear', _linear), ('max_pooling_2d', _max_pool),
    ('average_pooling_2d', _avg_pool), ('batch_normalization', _batch_norm),
    ('fixed_batch_normalization', _fixed_batch_norm),
    ('local_response_normalization', _lrn), ('relu', _eltwise(F.relu)),
    ('elu', _eltwise(F.elu)), ('leaky_relu', _eltwise(F.leaky_relu)),
    ('sigmoid', _eltwise(F.sigmoid)), ('tanh', _eltwise(F.tanh)),
    ('concat', _concat), ('add', _add),
    ('softmax_cross_entropy', _softmax_xent), ('lstm', _lstm_cell),
    ('lstm_link_steps', _lstm_link_steps),
    ('n_step_bilstm', _n_step(L.NStepBiLSTM)), ('n_step_gru', _n_step(L.NStepGRU)),
    ('n_step_rnn', _n_step(L.NStepRNNTanh)),
])


def run_case(make, seed, variant, where, mode='always', edit=None):
    """Forward and backward of one case; the results as float32 ndarrays.

    ``edit(arrays)`` may change the inputs in place before the call.
    """
    rng = numpy.random.default_rng(seed)
    fn, arrays, link = make(rng, variant)
    if edit is not None:
        edit(arrays)
    if link is not None:
        # (a new parameter's gradient is NaN-filled, as Chainer's: the
        # backward would add into it and every weight gradient compare as
        # NaN)
        link.cleargrads()
    with using_config('use_ideep', mode):
        if link is not None and where == 'device':
            link.to_intel64()
        if where == 'device':
            vs = [Variable(intel64.from_numpy(a)) for a in arrays]
        else:
            vs = [Variable(a.copy()) for a in arrays]
        y = fn(*vs)
        y.grad = normal(numpy.random.default_rng(seed + 1), *y.shape)
        y.backward()
    out = [numpy.asarray(y.array)] + [numpy.asarray(v.grad) for v in vs]
    if link is not None:
        out += [numpy.asarray(p.grad) for _, p in sorted(link.namedparams())]
    return out
