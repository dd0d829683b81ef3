"""Double backprop through n_step_* on the oneDNN route (issue 11).

'auto' takes the route by default, and its backward raised
NotImplementedError when the gradients had to be differentiable again (a
gradient penalty, meta-learning), where Chainer succeeds. With
enable_double_backprop the route's backward now recomputes the call on the
NumPy path and differentiates that: the second-order gradients equal the
NumPy path's, while plain training keeps the fast backward.
"""
import numpy
import pytest

from cpuframe import Variable, grad
from cpuframe import functions as F
from cpuframe import links as L
from cpuframe.backends import intel64
from cpuframe.configuration import using_config

LINKS = [L.NStepLSTM, L.NStepBiLSTM, L.NStepGRU, L.NStepBiGRU,
         L.NStepRNNTanh, L.NStepBiRNNReLU]


def _penalty_grads(cls, mode, where):
    numpy.random.seed(0)
    link = cls(2, 3, 4, 0.0)
    if where == 'device':
        link.to_intel64()
    rng = numpy.random.default_rng(1)
    arrays = [rng.standard_normal((n, 3)).astype(numpy.float32) for n in (3, 2, 2)]
    with using_config('use_ideep', mode):
        xs = [Variable(intel64.from_numpy(a) if where == 'device' else a)
              for a in arrays]
        out = link(None, None, xs) if 'LSTM' in cls.__name__ else link(None, xs)
        loss = sum(F.sum(y * y * y) for y in out[-1])
        gxs = grad([loss], xs, enable_double_backprop=True)
        penalty = sum(F.sum(g * g) for g in gxs)
        link.cleargrads()
        penalty.backward()
    return [numpy.asarray(x.grad) for x in xs] + \
        [numpy.asarray(p.grad) for _, p in sorted(link.namedparams())]


@pytest.mark.parametrize('where', ['numpy', 'device'])
@pytest.mark.parametrize('mode', ['auto', 'always'])
@pytest.mark.parametrize('cls', LINKS, ids=lambda c: c.__name__)
def test_double_backprop_equals_numpy_path(cls, mode, where):
    want = _penalty_grads(cls, 'never', 'numpy')
    got = _penalty_grads(cls, mode, where)
    for g, w in zip(got, want):
        scale = max(1.0, float(numpy.abs(w).max()))
        numpy.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4 * scale)


def test_first_order_training_keeps_the_native_backward(calls):
    numpy.random.seed(0)
    link = L.NStepLSTM(1, 3, 4, 0.0)
    xs = [Variable(numpy.ones((2, 3), numpy.float32))]
    with using_config('use_ideep', 'always'):
        _, _, ys = link(None, None, xs)
        F.sum(ys[0]).backward()
    assert 'rnn_backward' in calls.names


@pytest.mark.parametrize('where', ['numpy', 'device'])
def test_lstm_link_flattens_a_3d_x_on_every_route(where):
    # L.LSTM's upward Linear flattens x to (B, in_size), as in Chainer; the
    # fused device step rejected a 3-D x (issue 11).
    x = numpy.random.default_rng(0).standard_normal((2, 2, 2)).astype(numpy.float32)
    results = []
    for mode, on in (('never', 'numpy'), ('always', where)):
        numpy.random.seed(0)
        link = L.LSTM(4, 5)
        if on == 'device':
            link.to_intel64()
        with using_config('use_ideep', mode):
            xv = Variable(intel64.from_numpy(x) if on == 'device' else x)
            h = link(xv)
            h = link(xv)
            F.sum(h * h).backward()
        results.append([numpy.asarray(h.array), numpy.asarray(xv.grad),
                        numpy.asarray(link.upward.W.grad)])
    for g, w in zip(*results):
        numpy.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
